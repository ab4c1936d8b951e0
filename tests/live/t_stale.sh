# Instances of an ltap that was SIGKILLed are removed at the next start.
mkdir $T/instances/ltap-999999999
"$LTAP" -v -e 'probe("sched:sched_switch", function() end)' > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_attached $WORK/err
[ ! -d $T/instances/ltap-999999999 ] || fail "stale instance not removed"
[ -d $T/instances/ltap-$l ] || fail "running ltap has no instance"
kill -KILL $l; wait $l || true
[ -d $T/instances/ltap-$l ] || fail "expected the killed ltap's instance to remain"
run_ltap $WORK/out $WORK/err -d 10ms -e ''
[ ! -d $T/instances/ltap-$l ] || fail "killed ltap's instance not removed at next start"
expect_grep "removal said" "removed stale instance ltap-$l" $WORK/err

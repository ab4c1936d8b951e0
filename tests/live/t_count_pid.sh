# -p: only the target process is seen, exactly, while another runs alongside.
# Both wait for $WORK/go (tests/progs/gate.h), made once ltap is attached.
"$PROGS/getppid_loop" 40000 @$WORK/go 2> $WORK/target.err & target=$!; STARTED+=($target)
"$PROGS/getppid_loop" 40000 @$WORK/go 2> $WORK/other.err & other=$!; STARTED+=($other)
wait_for $WORK/target.err "^waiting for"
"$LTAP" -v -p $target "$COUNT_SCRIPT" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_attached $WORK/err
touch $WORK/go
wait $target; wait $other
# the events are in the rings: the final drain of a SIGINT reads them all
kill -INT $l; wait $l || fail "ltap exit code $?"
expect_eq "only the target" "getppid_loop 40000" "$(cat $WORK/out)"

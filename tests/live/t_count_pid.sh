# -p: only the target process is seen, exactly, while another runs alongside.
"$PROGS/getppid_loop" 40000 1500 & target=$!; STARTED+=($target)
"$PROGS/getppid_loop" 40000 1500 & other=$!; STARTED+=($other)
"$LTAP" -p $target "$COUNT_SCRIPT" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait $target; wait $other
sleep 0.3; kill -INT $l; wait $l || fail "ltap exit code $?"
expect_eq "only the target" "getppid_loop 40000" "$(cat $WORK/out)"

# -c: N getppid() calls of the command are counted exactly, for its comm.
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 123457" "$COUNT_SCRIPT"
expect_eq "exit code" 0 "$RC"
expect_eq "count" "getppid_loop 123457" "$(grep getppid_loop $WORK/out)"
expect_grep "command status reported" "command exited with status 0" $WORK/err
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 10 0 7" "$COUNT_SCRIPT"
expect_grep "command status 7 reported" "command exited with status 7" $WORK/err
# children are followed: a shell running the workload twice
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 1000; $PROGS/getppid_loop 2000" "$COUNT_SCRIPT"
expect_eq "children counted" "getppid_loop 3000" "$(grep getppid_loop $WORK/out)"
# a glob probe: every matching event, one handler; enter and exit of getppid
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 4321" -e 'n = {}
probe("syscalls:sys_*_getpp*", function(e) if e.comm == "getppid_loop" then n[e.name] = (n[e.name] or 0) + 1 end end)
finish(function() for k, v in sorted(n, "key") do printf("%s %d\n", k, v) end end)'
expect_eq "glob exit" 0 "$RC"
expect_eq "glob probe" "syscalls:sys_enter_getppid 4321
syscalls:sys_exit_getppid 4321" "$(cat $WORK/out)"

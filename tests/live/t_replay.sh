# --record then --input: the replay prints what the live run printed;
# trace-cmd reads ltap's file; bad input files get one clear line.
cat > $WORK/r.lua <<'LUA'
local s = stats()
local n = 0
probe("syscalls:sys_enter_getppid", function(e) s:inc(e.comm) n = n + 1 end)
probe("syscalls:sys_enter_getpgid", "pid == 7", function(e) s:inc("pgid7") end)
probe("sched:sched_process_exec", function(e) printf("exec %s\n", e.comm) end)
every("50ms", function() printf("tick %d\n", n) end)
finish(function() report(s, {keys = {"comm"}, fields = {"count"}}) end)
LUA
run_ltap $WORK/live $WORK/err --record $WORK/r.dat -c "$PROGS/getppid_loop 200000; sleep 0.12; $PROGS/getpgid_loop 100 7; $PROGS/getppid_loop 1000" $WORK/r.lua
expect_eq "live exit" 0 "$RC"
grep -q "^tick " $WORK/live || { cat $WORK/live; fail "the live run printed no interval"; }
expect_grep "live counts" "^getppid_loop +201000$" $WORK/live
run_ltap $WORK/replay $WORK/err --input $WORK/r.dat $WORK/r.lua
expect_eq "replay exit" 0 "$RC"
diff -u $WORK/live $WORK/replay || fail "the replay printed something else than the live run"
echo "ok: replay output identical to the live run ($(wc -l < $WORK/live) lines)"
run_ltap $WORK/replay2 $WORK/err replay $WORK/r.dat $WORK/r.lua
expect_eq "ltap replay FILE SCRIPT" "$(cat $WORK/live)" "$(cat $WORK/replay2)"

# trace-cmd reads the file ltap wrote
n=$(trace-cmd report $WORK/r.dat 2>/dev/null | grep -c 'getppid_loop-.*sys_enter_getppid')
expect_eq "trace-cmd report counts" 201000 "$n"

# bad input
run_ltap $WORK/out $WORK/err --input $WORK/nothere.dat -e 'probe("x:y", function() end)'
expect_eq "missing file exit" 1 "$RC"
expect_grep "missing file" "replay: cannot read .*nothere.dat: No such file or directory" $WORK/err
: > $WORK/empty.dat
run_ltap $WORK/out $WORK/err --input $WORK/empty.dat -e 'finish(function() print("empty ok") end)'
expect_eq "an empty file is an empty text trace" "empty ok" "$(cat $WORK/out)"
head -c 5000 $WORK/r.dat > $WORK/cut.dat
run_ltap $WORK/out $WORK/err --input $WORK/cut.dat -e ''
expect_grep "truncated file" "replay: cannot read .*cut.dat: not a trace.dat file" $WORK/err
run_ltap $WORK/out $WORK/err --input $WORK/r.dat -e 'probe("kmem:mm_page_free", function() end)'
expect_grep "event not in the trace" "unknown event 'kmem:mm_page_free'" $WORK/err
run_ltap $WORK/out $WORK/err --input $WORK/r.dat -c true -e ''
expect_grep "no -c in replay" "replay: -p and -c need a live run" $WORK/err

# ltap record: no script, the events of a command into a trace.dat that
# trace-cmd and ltap --input both read, exactly
run_ltap $WORK/out $WORK/err record -e syscalls:sys_enter_getppid -e 'kmem:mm_page_al*' -c "$PROGS/getppid_loop 1234" -o $WORK/rec.dat
expect_eq "record exit" 0 "$RC"
expect_grep "record summary" "^recorded [0-9]+ events of [23] event types in $WORK/rec.dat$" $WORK/out
expect_eq "trace-cmd report of ltap record" 1234 "$(trace-cmd report $WORK/rec.dat 2>/dev/null | grep -c 'getppid_loop-.*sys_enter_getppid')"
run_ltap $WORK/out $WORK/err --input $WORK/rec.dat "$COUNT_SCRIPT"
expect_eq "replay of ltap record" "getppid_loop 1234" "$(cat $WORK/out)"
run_ltap $WORK/out $WORK/err record -o $WORK/rec.dat
expect_grep "record without events" "no event to record" $WORK/err
# -f FILTER belongs to the -e before it (in the kernel, as trace-cmd's)
run_ltap $WORK/out $WORK/err record -e syscalls:sys_enter_getpgid -f 'pid == 7' -e syscalls:sys_enter_getppid \
  -c "$PROGS/getpgid_loop 50; $PROGS/getpgid_loop 30; $PROGS/getppid_loop 20" -o $WORK/rec.dat
expect_eq "record -f exit" 0 "$RC"
expect_eq "record -f: getpgid(7) of 80 calls" 8 "$(trace-cmd report $WORK/rec.dat 2>/dev/null | grep -c 'sys_enter_getpgid')"
expect_eq "record -f: getppid unfiltered" 20 "$(trace-cmd report $WORK/rec.dat 2>/dev/null | grep -c 'getppid_loop-.*sys_enter_getppid')"

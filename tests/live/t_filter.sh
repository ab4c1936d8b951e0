# A kernel filter selects an exactly known subset: getpgid(i % 10), pid == 3.
cat > $WORK/f.lua <<'LUA'
local sel, all, bad = 0, 0, 0
probe("syscalls:sys_enter_getpgid", "pid == 3", function(e)
  sel = sel + 1
end)
probe("syscalls:sys_enter_getpgid", "pid >= 8", function(e) all = all + 1; if e.args.pid < 8 then bad = bad + 1 end end)
finish(function() printf("sel=%d ge8=%d bad=%d\n", sel, all, bad) end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 100000" $WORK/f.lua
expect_eq "exit" 0 "$RC"
expect_eq "filtered counts" "sel=10000 ge8=20000 bad=0" "$(cat $WORK/out)"
# one probe alone: the filter lives only in the kernel
cat > $WORK/g.lua <<'LUA'
local n = 0
probe("syscalls:sys_enter_getpgid", "pid == 3 && common_pid != 0", function(e) n = n + 1 end)
finish(function() print(n) end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 50000" $WORK/g.lua
expect_eq "kernel-only filter" 5000 "$(cat $WORK/out)"

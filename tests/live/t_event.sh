# The event object: common fields, format fields, strings, tostring, copy().
cat > $WORK/e.lua <<'LUA'
local seen
probe("task:task_newtask", function(e)
  if e.comm ~= "sh" or seen then return end
  seen = e:copy()
  printf("name=%s tostring=%s\n", e.name, tostring(e):gsub("pid=%d+", "pid=N"):gsub("clone_flags=%x+", "clone_flags=X"):gsub("oom_score_adj=%-?%d+", "oom=Y"))
  printf("types pid=%s tid=%s cpu=%s time=%s comm=%s\n", math.type(e.pid), math.type(e.tid), math.type(e.cpu), math.type(e.time), type(e.comm))
  printf("fieldcomm=%s\n", e.comm)
end)
local calls, pids = 0, {}
probe("syscalls:sys_enter_getppid", function(e)
  if e.comm ~= "getppid_loop" then return end
  calls = calls + 1
  pids[e.pid == e.tid and "target" or "other"] = true
  nr = e.__syscall_nr
end)
finish(function()
  printf("calls=%d target=%s nr=%d keep=%s\n", calls, tostring(pids.target), nr, seen and seen.name or "nil")
end)
LUA
run_ltap $WORK/out $WORK/err -c "sh -c '$PROGS/getppid_loop 5 & $PROGS/getppid_loop 7; wait'" $WORK/e.lua
expect_eq "exit" 0 "$RC"
expect_grep "name and kernel rendering" "^name=task:task_newtask tostring=task_newtask: pid=N comm=sh clone_flags=X oom=Y$" $WORK/out
expect_grep "common field types" "^types pid=integer tid=integer cpu=integer time=integer comm=string$" $WORK/out
expect_grep "counts, pid, syscall nr, copy" "^calls=12 target=true nr=110 keep=task:task_newtask$" $WORK/out

# an event kept beyond its handler refuses to be read
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 1" -e 'local k; probe("syscalls:sys_enter_getppid", function(e) k = e end) finish(function() return k.comm end)'
expect_grep "stale event" "attempt to use an event outside its handler" $WORK/err

# events reach Lua in time order across CPUs, and they did come from more
# than one CPU (arg[1]: the CPUs to see, 2 or this machine's one)
cat > $WORK/o.lua <<'LUA'
local want = tonumber(arg[1])
local last, n, bad, cpus = 0, 0, 0, {}
probe("sched:sched_switch", function(e)
  if e.time < last then bad = bad + 1 end
  last = e.time; n = n + 1; cpus[e.cpu] = true
end)
probe("syscalls:sys_enter_getppid", function(e)
  if e.time < last then bad = bad + 1 end
  last = e.time; n = n + 1; cpus[e.cpu] = true
end)
finish(function()
  local c = 0 for _ in pairs(cpus) do c = c + 1 end
  printf("%s %s cpus=%s\n", n > 1000 and "many" or "few", bad, c >= want and "enough" or tostring(c))
end)
LUA
# one loop pinned to each of two CPUs (taskset), so two CPUs' rings are merged
ncpu=$(nproc); [ "$ncpu" -gt 2 ] && ncpu=2
run_ltap $WORK/out $WORK/err -c "taskset -c 0 $PROGS/getppid_loop 300000 & taskset -c $((ncpu - 1)) $PROGS/getppid_loop 300000 & wait" $WORK/o.lua $ncpu
expect_eq "ordered across CPUs (events, out-of-order, CPUs seen)" "many 0 cpus=enough" "$(cat $WORK/out)"

-- name: offcpu
-- summary: off-CPU time by blocked stack (and waker's): top stacks, folded, flame graph
-- usage: ltap offcpu [-p PID | -c CMD | -a] [-d DURATION] [-m MIN] [-s S|D|SD] [--wakers] [--folded FILE]
--        [--svg FILE] [--top N]
-- example:
--   # Off-CPU time: 2.011 s in 4 stacks (states S and D), top 2
--
--   754.012 ms  sleeper (37.5%)
--     __schedule
--     schedule
--     do_nanosleep
--     hrtimer_nanosleep
--     __x64_sys_nanosleep
--     do_syscall_64
--     entry_SYSCALL_64_after_hwframe
--     func_B
--     sleeper
--     start_thread
--
-- Where threads wait: each time a thread leaves the CPU blocked (state S,
-- sleeping, or D, uninterruptible: -s), its kernel and user stack is kept;
-- when it runs again the time it was away is added to that stack, counted
-- in C (ltap.offcpu: no Lua call per switch). Blocks shorter than -m are
-- left out. With --wakers each blocked stack is joined to the stack of the
-- task that woke it ("blocked;--;waker", as offwaketime shows it): who made
-- the wait end. System-wide unless -p or -c; ltap leaves itself out. The
-- report lists the N stacks with the most time, leaf first; --folded writes
-- every stack with its time in microseconds (the folded format of
-- FlameGraph's offcputime), --svg a flame graph of them (blue, "us").
local getopt = require("ltap.getopt")
local folded = require("ltap.folded")

local o, pos = getopt{
  {"-m, --min", "duration", "leave out blocks shorter than MIN (default: none)", arg = "MIN"},
  {"-s, --state", "string", "the states counted: S (sleeping), D (uninterruptible), SD both", default = "SD",
    choices = {"S", "D", "SD"}},
  {"--wakers", "flag", "join each blocked stack to its waker's stack (off-wake time)"},
  {"--folded", "string", "write the stacks with their time in us to FILE", arg = "FILE"},
  {"--svg", "string", "write a flame graph to FILE", arg = "FILE"},
  {"--top", "integer", "the N stacks with the most time", default = 10, min = 1},
  targets = true,
}
if #pos > 0 then getopt.error("unexpected argument '" .. pos[1] .. "'") end
local flame
if o.svg then
  local ok, mod = pcall(require, "ltap.flamegraph")
  if not ok then ltap.usage_error("--svg: the flame graph writer (ltap.flamegraph) is not available in this build") end
  flame = mod
end

local counts = ltap.stackcount()
local state = ltap.offcpu(counts, {states = o.state, min = o.min or 0, wakers = o.wakers})

-- "a;b;c" -> {"a", "b", "c"}
local function frames_of(stack)
  local t = {}
  for f in stack:gmatch("[^;]+") do t[#t + 1] = f end
  return t
end

local function ms(ns) return string.format("%.3f ms", ns / 1e6) end

-- one stack, leaf first, as offcputime prints it; with a waker, its stack
-- after "--", from its leaf, and its name
local function print_stack(stack, ns, total)
  local f = frames_of(stack)
  local cut = #f + 1
  for i, name in ipairs(f) do if name == "--" then cut = i break end end
  printf("%12s  %s (%.1f%%)\n", ms(ns), f[1], total > 0 and 100 * ns / total or 0)
  for i = cut - 1, 2, -1 do printf("    %s\n", (f[i]:gsub("_%[k%]$", ""))) end
  if cut <= #f then
    printf("    --\n")
    for i = cut + 1, #f - 1 do printf("    %s\n", (f[i]:gsub("_%[k%]$", ""))) end
    printf("    woken by %s\n", f[#f])
  end
  printf("\n")
end

finish(function()
  local stacks = counts:folded() -- ns per folded stack
  local total, n = 0, 0
  for _, ns in pairs(stacks) do total, n = total + ns, n + 1 end
  local states = o.state == "SD" and "S and D" or o.state
  printf("# Off-CPU time: %.3f s in %d stacks (state%s %s)%s, top %d\n\n", total / 1e9, n,
         #o.state > 1 and "s" or "", states, o.min and (", blocks of " .. fmt.duration(o.min) .. " or more") or "",
         math.min(o.top, n))
  for stack, ns in sorted(stacks, o.top) do print_stack(stack, ns, total) end
  if state:unseen() > 0 then
    io.stderr:write(string.format("ltap: offcpu: %d blocks whose switch back in was not seen, ended at the last "
      .. "switch seen on their CPU (a task hidden from tracing, or lost events)\n", state:unseen()))
  end
  if state:dropped() > 0 then
    io.stderr:write(string.format("ltap: offcpu: %d blocks not counted: too many tasks blocked at once\n",
      state:dropped()))
  end
  if not (o.folded or flame) then return end
  -- microseconds per stack, as offcputime's folded output: rounded once,
  -- from the stack's total (a stack under 1 us is left out)
  local us = {}
  for stack, ns in pairs(stacks) do
    local v = (ns + 500) // 1000
    if v > 0 then us[stack] = v end
  end
  local keys, cnt = ltap.flame_sort(us)
  local list = {stacks = keys, counts = cnt}
  if o.folded then
    local k, err = folded.write(list, o.folded)
    if not k then error("--folded: " .. err, 0) end
    io.stderr:write(string.format("ltap: %d stacks written to %s\n", k, o.folded))
  end
  if flame then
    local k, err = flame.write(list, o.svg, {
      title = o.wakers and "Off-Wake Time Flame Graph" or "Off-CPU Time Flame Graph",
      colors = o.wakers and "chain" or "io", countname = "us"})
    if not k then error("--svg: " .. err, 0) end
    io.stderr:write(string.format("ltap: flame graph written to %s\n", o.svg))
  end
end)

-- name: syscount
-- summary: syscalls per process and per syscall, top N, every interval (-L: latency)
-- usage: ltap syscount [-p PID | -c CMD | -a] [-d DURATION] [-i INTERVAL] [-n TOP] [-L]
-- example:
--   PROCESS            CALLS
--   Xorg               12004
--   ...
--   SYSCALL            CALLS   TOTAL ms   AVG us
--   futex               8123     512.33    63.07
--
-- Counts raw_syscalls:sys_enter per process name and per syscall; with -L
-- also the time from each sys_enter to its thread's sys_exit, per syscall.
-- Every INTERVAL (default 5s; 0 = only at the end) both tables are printed
-- and reset; the end of the run prints the last, partial interval.

local getopt = require("ltap.getopt")
local o, rest = getopt{
  {"-i, --interval", "duration", "print and reset both tables every INTERVAL; 0: only at the end",
    default = "5s", arg = "INTERVAL"},
  {"-n, --top", "integer", "the TOP first rows of each table", default = 10, min = 1, arg = "TOP"},
  {"-L, --latency", "flag", "also the time from each sys_enter to its thread's sys_exit, per syscall"},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
local top, latency = o.top, o.latency or false

local by_comm, by_call = stats(), stats()
local entered = {} -- tid -> {nr, time} of the syscall in progress

local function name(nr)
  return ltap.syscall_name(nr) or ("syscall_" .. nr)
end

-- the calls per process counted in C (s:by), no Lua per syscall
probe("raw_syscalls:sys_enter", by_comm:by("comm"))
if latency then
  probe("raw_syscalls:sys_enter", function(e)
    local t = entered[e.tid]
    if not t then t = {}; entered[e.tid] = t end
    t.nr, t.time = e.id, e.time
  end)
  probe("raw_syscalls:sys_exit", function(e)
    local t = entered[e.tid]
    if t and t.nr == e.id then
      by_call:add(t.nr, e.time - t.time)
      t.nr = nil
    end
  end)
else
  probe("raw_syscalls:sys_enter", by_call:by("id"))
end

local function show()
  report(by_comm, {top = top, keys = {"PROCESS"}, header = string.format("%-20s %10s", "PROCESS", "CALLS"),
    row = function(comm, st) return string.format("%-20s %10d", comm, st.count) end})
  print()
  if latency then
    report(by_call, {top = top, keys = {"SYSCALL"}, header = string.format("%-20s %10s %12s %10s", "SYSCALL", "CALLS", "TOTAL ms", "AVG us"),
      row = function(nr, st) return string.format("%-20s %10d %12.2f %10.2f", name(nr), st.count, st.sum / 1e6, st.avg / 1e3) end})
  else
    report(by_call, {top = top, keys = {"SYSCALL"}, header = string.format("%-20s %10s", "SYSCALL", "CALLS"),
      row = function(nr, st) return string.format("%-20s %10d", name(nr), st.count) end})
  end
  print()
  by_comm:clear()
  by_call:clear()
end

if o.interval > 0 then every(o.interval / 1e9, show) end
finish(show)

-- proctree.lua: pid -> {pid, comm, ppid, start, exit} for every process seen,
-- kept from sched_process_fork/exec/exit in event order and seeded from
-- /proc (live) at load, so attribution survives processes that exited.
--
--   local tree = require("ltap.proctree")
--   probe("kmem:mm_page_alloc", function(e) local p = tree.get(e.pid) ... end)
--   tree.get(pid) -> the entry or nil; tree.ancestors(pid) -> {pid, ppid, ...}
--   tree.path(pid) -> "systemd;sshd;bash;make" (comms, root first)
-- start/exit are event times in ns (nil when not seen); a pid reused after
-- its exit gets a new entry.

local M = {}
local procs = {}

local function read_stat(pid)
  local f = io.open("/proc/" .. pid .. "/stat")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  -- the comm is in parentheses and may contain anything, even ") "
  local comm, rest = s:match("^%d+ %((.*)%) (.*)$")
  if not comm then return nil end
  local ppid = rest:match("^%S+ (%d+)")
  return comm, tonumber(ppid)
end

if ltap.live then
  local p = io.popen("ls /proc 2>/dev/null")
  for name in p:lines() do
    local pid = tonumber(name)
    if pid then
      local comm, ppid = read_stat(pid)
      if comm then procs[pid] = {pid = pid, comm = comm, ppid = ppid} end
    end
  end
  p:close()
end

-- the -c command was forked by ltap before any probe was on
begin(function()
  local f = io.open("/proc/self/stat")
  local self = f and tonumber(f:read("a"):match("^(%d+)"))
  if f then f:close() end
  local t = ltap.target
  if ltap.live and t and t > 0 and not procs[t] then
    procs[t] = {pid = t, comm = "ltap", ppid = self}
    if self and not procs[self] then procs[self] = {pid = self, comm = "ltap", ppid = nil} end
  end
end)

probe("sched:sched_process_fork", function(e)
  local parent = e.parent_pid
  local pp = procs[parent]
  procs[e.child_pid] = {pid = e.child_pid, comm = e.child_comm, ppid = pp and pp.pid or parent, start = e.time}
end)
probe("sched:sched_process_exec", function(e)
  local p = procs[e.pid]
  if not p then p = {pid = e.pid}; procs[e.pid] = p end
  p.comm = e.comm
  -- forked before the probes were on (a -c command): its parent from /proc
  if not p.ppid and ltap.live then p.ppid = select(2, read_stat(e.pid)) end
end)
probe("sched:sched_process_exit", "group_dead == 1", function(e)
  local p = procs[e.pid]
  if p then p.exit = e.time end
end)

-- a process seen before its fork or exec event (a -c command renamed by
-- exec before the exec event): /proc, while it still runs
function M.get(pid)
  local p = procs[pid]
  if not p and ltap.live and pid then
    local comm, ppid = read_stat(pid)
    if comm then p = {pid = pid, comm = comm, ppid = ppid}; procs[pid] = p end
  end
  return p
end

function M.ancestors(pid)
  local out, seen = {}, {}
  while pid and M.get(pid) and not seen[pid] do
    seen[pid] = true
    out[#out + 1] = pid
    pid = procs[pid].ppid
  end
  return out
end

function M.path(pid)
  local a, names = M.ancestors(pid), {}
  for i = #a, 1, -1 do names[#names + 1] = procs[a[i]].comm or "?" end
  return table.concat(names, ";")
end

function M.all() return procs end

return M

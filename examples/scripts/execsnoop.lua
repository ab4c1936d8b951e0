-- name: execsnoop
-- summary: every program started, with its parent, as it starts
-- usage: ltap execsnoop.lua [-p PID | -c CMD | -d DURATION]
-- example:
--   TIME(s)  PID     PPID    COMM             FILE
--   0.412    41711   41705   make             /usr/bin/make
--   0.415    41712   41711   cc               /usr/bin/cc
--
-- sched:sched_process_exec names the file; the process tree of ltap.proctree
-- (fed by fork, exec and exit events, seeded from /proc) gives the parent,
-- also of a process that has exited since.

local tree = require("ltap.proctree")
begin(function() printf("%-8s %-7s %-7s %-16s %s\n", "TIME(s)", "PID", "PPID", "COMM", "FILE") end)
probe("sched:sched_process_exec", function(e)
  local p = tree.get(e.pid)
  printf("%-8.3f %-7d %-7s %-16s %s\n", (e.time - ltap.start_time()) / 1e9, e.pid,
         p and p.ppid or "?", e.comm, e.filename)
end)

-- name: syscall-metrics
-- summary: system calls per process name, served to Prometheus (--serve)
-- usage: ltap --serve 9100 syscall-metrics.lua
-- example:
--   $ curl -s 127.0.0.1:9100/metrics | grep ^syscalls_total
--   syscalls_total{comm="sshd"} 10452
--   syscalls_total{comm="bash"} 1201
--
-- A metric is a view of an aggregate, read at each scrape: nothing is added
-- per event but the count. ltap runs until SIGTERM or ^C.

local calls = metrics.counter("syscalls_total", {labels = {"comm"}, help = "System calls by process name"})
probe("raw_syscalls:sys_enter", function(e) calls:inc(e.comm) end)

-- name: syscall-exporter
-- summary: syscalls per process and syscall, and their latency histogram, as Prometheus metrics (--serve)
-- usage: ltap --serve [ADDR:]PORT syscall-exporter [-p PID | -c CMD | -a] [-d DURATION] [--by-comm] [--max-keys N]
-- example:
--   # TYPE syscalls_total counter
--   syscalls_total{comm="Xorg",syscall="futex"} 8123
--   # TYPE syscall_duration_seconds histogram
--   syscall_duration_seconds_bucket{syscall="read",le="3.1e-08"} 5
--   ...
--   syscall_duration_seconds_bucket{syscall="read",le="+Inf"} 9301
--   syscall_duration_seconds_sum{syscall="read"} 0.0871
--   syscall_duration_seconds_count{syscall="read"} 9301
--
-- raw_syscalls:sys_enter counted per process name and syscall; the time
-- from each sys_enter to its thread's sys_exit in a log2 histogram per
-- syscall (per process name and syscall with --by-comm: many more series),
-- exported in seconds. Keys are bounded by --max-keys (default 10000 for
-- the counter, 1000 for the histogram), drops counted in
-- ltap_metric_dropped_total. A syscall that never returns (exit) leaves
-- its start behind: starts older than a minute are swept every minute.
--
-- Prometheus (prometheus.yml):
--   scrape_configs:
--     - job_name: ltap-syscalls
--       static_configs: [{targets: ["HOST:9102"]}]
-- PromQL: 99th percentile of read(2) latency over the fleet, last 5 minutes:
--   histogram_quantile(0.99, sum by (le) (rate(syscall_duration_seconds_bucket{syscall="read"}[5m])))

local getopt = require("ltap.getopt")
local o, rest = getopt{
  {"--by-comm", "flag", "the latency histogram per process name and syscall (many more series)"},
  {"--max-keys", "integer", "keys kept per metric (default 10000 for the counter, 1000 for the histogram)",
    min = 1},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
local by_comm, max_keys = o.by_comm or false, o.max_keys
if not ltap.serving then
  io.stderr:write("syscall-exporter: nothing is printed; serve the metrics with ltap --serve PORT syscall-exporter\n")
end

-- syscall names resolved once per number, not per event
local names = setmetatable({}, {__index = function(t, nr)
  local n = ltap.syscall_name(nr) or ("syscall_" .. nr)
  t[nr] = n
  return n
end})

local calls = metrics.counter("syscalls_total", {labels = {"comm", "syscall"}, max_keys = max_keys or 10000,
  help = "System calls (raw_syscalls:sys_enter) by process name and syscall"})
local lat = metrics.histogram("syscall_duration_seconds", {labels = by_comm and {"comm", "syscall"} or {"syscall"},
  max_keys = max_keys or 1000, scale = 1e-9,
  help = "Time from sys_enter to sys_exit of a thread's system call, in seconds"})

-- the calls counted in C (s:by: comm, and the syscall's name by its id)
probe("raw_syscalls:sys_enter", calls:by({"comm", "syscall"}))
local start_nr, start_time = {}, {}   -- tid -> the syscall in progress
probe("raw_syscalls:sys_enter", function(e)
  start_nr[e.tid], start_time[e.tid] = e.id, e.time
end)
probe("raw_syscalls:sys_exit", function(e)
  local tid = e.tid
  local t = start_time[tid]
  if t and start_nr[tid] == e.id then
    if by_comm then lat:add(e.comm, names[e.id], e.time - t) else lat:add(names[e.id], e.time - t) end
    start_time[tid], start_nr[tid] = nil, nil
  end
end)
every("60s", function()
  local old = ltap.now() - 60e9
  for tid, t in pairs(start_time) do
    if t < old then start_time[tid], start_nr[tid] = nil, nil end
  end
end)

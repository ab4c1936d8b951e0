-- name: read-latency
-- summary: time of read() calls per process name, as log2 histograms, at the end
-- usage: ltap read-latency.lua [-p PID | -c CMD | -d DURATION]
-- example:
--   @[cat]: count 12, avg 18345.25, min 1702, max 120336
--   [1K, 2K)            3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
--   [2K, 4K)            1 |@@@@@@@@@@@@@@@@@                                  |
--   ...
--
-- derive.pairs matches each thread's sys_enter_read with its sys_exit_read;
-- the aggregate is a stats() with a log2 histogram, in ns.

local derive = require("ltap.derive")
local lat = stats{hist = "log2"}
derive.pairs{start = "syscalls:sys_enter_read", stop = "syscalls:sys_exit_read", key = "tid",
             fn = function(ns, start, e) lat:add(e.comm, ns) end}
finish(function() report(lat) end)

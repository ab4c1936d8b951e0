-- name: latency
-- summary: time between two events matched by a key, as a log2 histogram with percentiles
-- usage: ltap [-p PID] latency [-c CMD] [-k FIELD] [--by comm] [-i INTERVAL] START END
--        [--start-filter F] [--end-filter F]
-- example:
--   ltap latency syscalls:sys_enter_read syscalls:sys_exit_read
--   @: count 5230, avg 2104.50, min 310, max 980113      (ns)
--   [256, 512)       120 |@@                                                  |
--   [512, 1K)       2011 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
--   ...
--   p50 812 ns   p90 3.10 us   p99 41.2 us   max 980 us
--
-- Matches START and END by the thread (or -k FIELD, present in both), and
-- records END's time minus START's. With --by comm one histogram per process
-- name. Percentiles are exact up to 1,000,000 samples per report, then from
-- a uniform reservoir of that size.

local getopt = require("ltap.getopt")
local derive = require("ltap.derive")
local usage = "usage: latency [-c CMD] [-k FIELD] [--by comm] [-i INTERVAL] START END [--start-filter F] [--end-filter F]"
local o, rest = getopt(arg, {c = "value", k = "value", by = "value", i = "value", ["start-filter"] = "value",
  ["end-filter"] = "value"}, usage)
if #rest ~= 2 then error("latency: START and END events are needed (" .. usage .. ")", 0) end
if o.c then ltap.set_command(o.c) end
if o.by and o.by ~= "comm" then error("latency: --by takes comm", 0) end

local RESERVOIR = 1000000
local hist = stats{hist = "log2"}
local samples, seen = {}, 0

derive.pairs{start = rest[1], stop = rest[2], key = o.k or "tid",
  start_filter = o["start-filter"], stop_filter = o["end-filter"],
  fn = function(ns, _, e)
    if o.by then hist:add(e.comm, ns) else hist:add(ns) end
    seen = seen + 1
    if seen <= RESERVOIR then
      samples[seen] = ns
    else
      local j = math.random(seen)
      if j <= RESERVOIR then samples[j] = ns end
    end
  end}

local function percentile(sorted_samples, p)
  local n = #sorted_samples
  if n == 0 then return nil end
  return sorted_samples[math.max(1, math.ceil(p / 100 * n))]
end

local function show()
  report(hist, {keys = {"comm"}})
  table.sort(samples)
  if #samples > 0 then
    local parts = {}
    for _, p in ipairs{50, 90, 99} do parts[#parts + 1] = string.format("p%d %s", p, fmt.duration(percentile(samples, p))) end
    parts[#parts + 1] = "max " .. fmt.duration(samples[#samples])
    printf("%s   (%d pairs)\n", table.concat(parts, "   "), seen)
  else
    printf("no START/END pairs\n")
  end
  hist:clear()
  samples, seen = {}, 0
end

if o.i then every(tonumber(o.i) or o.i, show) end
finish(show)

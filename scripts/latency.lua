-- name: latency
-- summary: time between two events matched by a key, as a log2 histogram with percentiles
-- usage: ltap latency [-p PID | -c CMD | -a] [-d DURATION] [-k FIELD] [--by comm] [-i INTERVAL]
--        [--start-filter F] [--end-filter F] [--heatmap FILE.svg] [--heatmap-text FILE]
--        [--heatmap-step DURATION] [--heatmap-rows log2|linear] [--heatmap-max DURATION] START END
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
--
-- --heatmap draws the whole run as a latency heat map (ltap.heatmap: time
-- in columns of --heatmap-step, default about 100 of them; latency in log2
-- rows, or 50 linear rows up to --heatmap-max, default the largest; the
-- colour by count; hover shows a cell's ranges and count); --heatmap-text
-- writes every pair as "END_TIME LATENCY" in ns, the input of Gregg's
-- trace2heatmap.pl --unitstime=ns --unitslabel=ns.

local getopt = require("ltap.getopt")
local derive = require("ltap.derive")
local o, rest = getopt{
  {"-k, --key", "string", "match START and END by FIELD, present in both (default: the thread)", arg = "FIELD"},
  {"--by", "string", "one histogram per process name", choices = {"comm"}},
  {"-i, --interval", "duration", "print and reset the histogram every INTERVAL (default: only at the end)",
    arg = "INTERVAL", min = 1},
  {"--start-filter", "string", "only START events matching the ftrace filter F", arg = "F"},
  {"--end-filter", "string", "only END events matching the ftrace filter F", arg = "F"},
  {"--heatmap", "string", "draw a latency heat map of the whole run into FILE (SVG)", arg = "FILE"},
  {"--heatmap-text", "string", "write each pair as 'END_TIME LATENCY' (ns) into FILE, for trace2heatmap.pl",
    arg = "FILE"},
  {"--heatmap-step", "duration", "the heat map's time per column (default: about 100 columns)", arg = "DURATION",
    min = 1},
  {"--heatmap-rows", "string", "the heat map's latency rows (default log2)", choices = {"log2", "linear"}},
  {"--heatmap-max", "duration", "the top of linear rows (default: the largest latency)", arg = "DURATION", min = 1},
  targets = true,
}
if #rest ~= 2 then getopt.error("START and END events are needed") end
local heat = (o.heatmap or o.heatmap_text) and require("ltap.heatmap").new()

local RESERVOIR = 1000000
local hist = stats{hist = "log2"}
local samples, seen = {}, 0

derive.pairs{start = rest[1], stop = rest[2], key = o.key or "tid",
  start_filter = o.start_filter, stop_filter = o.end_filter,
  fn = function(ns, _, e)
    if o.by then hist:add(e.comm, ns) else hist:add(ns) end
    if heat then heat:add(e.time, ns) end
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

if o.interval then every(o.interval / 1e9, show) end
finish(show)
if heat then
  finish(function()
    if o.heatmap then
      local n, err = heat:write(o.heatmap, {start = ltap.start_time(), step = o.heatmap_step,
        rows = o.heatmap_rows, max = o.heatmap_max, title = "Latency Heat Map: " .. rest[1] .. " to " .. rest[2]})
      if not n then error("--heatmap: " .. err, 0) end
      io.stderr:write(string.format("ltap: heat map of %d pairs (%d cells) written to %s\n", heat:count(), n, o.heatmap))
    end
    if o.heatmap_text then
      local n, err = heat:write_text(o.heatmap_text)
      if not n then error("--heatmap-text: " .. err, 0) end
      io.stderr:write(string.format("ltap: %d pairs written to %s\n", n, o.heatmap_text))
    end
  end)
end

-- name: timeline
-- summary: elapsed time of marked events since the first (uprobes, USDT markers, any event)
-- usage: ltap timeline [-p PID | -c CMD | -a] [-d DURATION] [--perfetto FILE] [--markers FILE] SPEC...
--        SPEC: u:PATH:FUNC, usdt:PATH:[PROVIDER:]NAME, an event (sched:sched_process_exit),
--        or marker: every write to trace_marker, named by its text
-- example:
--   0.000 phase_a
--   0.020 phase_b
--   0.050 phase_c
--
--   phase          ms
--   phase_a    20.081
--   phase_b    30.077
--
-- The boot-timing table without print statements in the program: each hit of
-- a marker is one line, its time since the first hit in seconds; then how
-- long each phase lasted (until the next marker). --perfetto writes the same
-- as a Chrome/Perfetto JSON trace (phases as slices) for ui.perfetto.dev.

local getopt = require("ltap.getopt")
local o, specs = getopt{
  {"--perfetto", "string", "also write the timeline as a Chrome/Perfetto JSON trace to FILE", arg = "FILE"},
  {"--markers", "string", "more SPECs, one a line, from FILE (# comments)", arg = "FILE"},
  targets = true,
}
local perfetto = o.perfetto
if o.markers then
  local f, why = io.open(o.markers)
  if not f then ltap.usage_error("--markers: cannot open " .. why) end
  for line in f:lines() do
    line = line:gsub("#.*", ""):match("^%s*(.-)%s*$")
    if line ~= "" then specs[#specs + 1] = line end
  end
  f:close()
end
if #specs == 0 then getopt.error("no markers given") end

local hits = {} -- {time=, name=, pid=, tid=}

local function label(spec)
  return spec:match("^usdt:.*:([^:]+:[^:]+)$") or spec:match(":([^:]+)$") or spec
end

for _, spec in ipairs(specs) do
  if spec == "marker" then
    -- every trace_marker write (from any program, or ltap.mark) is a hit named by its text
    probe("ftrace:print", function(e)
      hits[#hits + 1] = {time = e.time, name = (e.buf:gsub("%s+$", "")), pid = e.pid, tid = e.tid}
    end)
  else
    local name = label(spec)
    probe(spec, function(e) hits[#hits + 1] = {time = e.time, name = name, pid = e.pid, tid = e.tid} end)
  end
end

local function write_perfetto(path, t0, t_end)
  local json = require("dkjson")
  local events = {}
  for k, h in ipairs(hits) do
    local stop = hits[k + 1] and hits[k + 1].time or t_end
    events[#events + 1] = {name = h.name, ph = "X", ts = (h.time - t0) / 1e3, dur = (stop - h.time) / 1e3,
      pid = h.pid, tid = h.tid, cat = "timeline"}
    events[#events + 1] = {name = h.name, ph = "i", s = "t", ts = (h.time - t0) / 1e3, pid = h.pid, tid = h.tid}
  end
  local f = assert(io.open(path, "w"))
  f:write(json.encode({traceEvents = events, displayTimeUnit = "ms"}), "\n")
  f:close()
end

finish(function()
  if #hits == 0 then
    io.stderr:write("timeline: no marker was hit\n")
    return
  end
  local t0, t_end = hits[1].time, ltap.now()
  for _, h in ipairs(hits) do printf("%.3f %s\n", (h.time - t0) / 1e9, h.name) end
  print()
  local rows = {{"phase", "ms"}}
  for k, h in ipairs(hits) do
    if hits[k + 1] then rows[#rows + 1] = {h.name, string.format("%.3f", (hits[k + 1].time - h.time) / 1e6)} end
  end
  if #rows > 1 then
    local w = 0
    for _, r in ipairs(rows) do w = math.max(w, #r[1]) end
    for _, r in ipairs(rows) do printf("%-" .. w .. "s %10s\n", r[1], r[2]) end
  end
  if perfetto then write_perfetto(perfetto, t0, t_end) end
end)

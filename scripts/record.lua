-- name: record
-- summary: save events as a trace.dat that ltap --input and trace-cmd report read
-- usage: ltap record -e EVENT [-f FILTER] [-e EVENT [-f FILTER]...] [-p PID | -c CMD | -a] [-d DURATION] [-o FILE]
-- example:
--   # ltap record -e kmem:mm_page_alloc -e 'sched:sched_process_*' -c 'make -j2' -o make.dat
--   ltap: command exited with status 0
--   recorded 48213 events of 4 event types in make.dat
--   # ltap --input make.dat pagealloc-postprocess      (or: trace-cmd report make.dat)
--
-- The events go into a trace-cmd trace.dat version 6 (ltap --record): the
-- sub-buffers as the kernel wrote them, the formats, the task names, and
-- the start and end of the run, so a script replayed over the file runs its
-- timers over the recorded span. EVENT may be a glob ("kmem:*"); -f FILTER
-- (ftrace filter syntax, in the kernel) applies to the -e before it, as
-- with trace-cmd record. Without -p or -c the whole system is recorded
-- (-a), until ^C or -d.

local getopt = require("ltap.getopt")
-- -e and -f are taken in order: a filter belongs to the event before it
local events = {}
local o, rest = getopt{
  {"-e, --event", "string", "record EVENT (a glob: 'kmem:*')", arg = "EVENT", many = true,
    each = function(v) events[#events + 1] = {event = v} end},
  {"-f, --filter", "string", "only the events of the -e before it that match FILTER (ftrace filter syntax)",
    arg = "FILTER", many = true,
    each = function(v)
      if #events == 0 or events[#events].filter then return nil, "-f " .. v .. " follows no -e of its own" end
      events[#events].filter = v
      return true
    end},
  {"-o, --output", "string", "the trace.dat to write", default = "trace.dat", arg = "FILE"},
  targets = {"-p", "-c", "-a", "-d"},
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
if #events == 0 then getopt.error("no event to record") end
local file = o.output
ltap.options{record = file}

local n, types = 0, {}
local function count(e) n = n + 1 types[e.name] = true end
for _, ev in ipairs(events) do probe(ev.event, ev.filter, count) end
finish(function()
  local k = 0
  for _ in pairs(types) do k = k + 1 end
  printf("recorded %d events of %d event type%s in %s\n", n, k, k == 1 and "" or "s", file)
end)

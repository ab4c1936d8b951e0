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
local usage = "usage: record -e EVENT [-f FILTER] [-e EVENT [-f FILTER]...] [-p PID | -c CMD | -a] [-d DURATION] [-o FILE]"
-- -e and -f are taken in order (a filter belongs to the event before it)
local events, others = {}, {}
local i = 1
while arg[i] ~= nil do
  local a, v = arg[i], arg[i + 1]
  if a == "-e" or a == "-f" then
    if v == nil then error("record: " .. a .. " needs a value (" .. usage .. ")", 0) end
    if a == "-e" then
      events[#events + 1] = {event = v}
    elseif #events == 0 or events[#events].filter then
      error("record: -f " .. v .. " follows no -e of its own (" .. usage .. ")", 0)
    else
      events[#events].filter = v
    end
    i = i + 2
  else
    others[#others + 1] = a
    i = i + 1
  end
end
local o, rest = getopt(others, {p = "number", c = "value", a = "flag", d = "value", o = "value"}, usage)
if #rest > 0 then error("record: unexpected argument '" .. rest[1] .. "' (" .. usage .. ")", 0) end
if #events == 0 then error("record: no event to record (" .. usage .. ")", 0) end
if o.a and (o.p or o.c) then error("record: -a records the whole system; -p and -c only a target", 0) end
local file = o.o or "trace.dat"
ltap.options{pid = o.p, command = o.c, duration = o.d, record = file}

local n, types = 0, {}
local function count(e) n = n + 1 types[e.name] = true end
for _, ev in ipairs(events) do probe(ev.event, ev.filter, count) end
finish(function()
  local k = 0
  for _ in pairs(types) do k = k + 1 end
  printf("recorded %d events of %d event type%s in %s\n", n, k, k == 1 and "" or "s", file)
end)

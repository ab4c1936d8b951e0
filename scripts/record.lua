-- name: record
-- summary: save events as a trace.dat that ltap --input and trace-cmd report read
-- usage: ltap record -e EVENT [-e EVENT...] [-p PID | -c CMD | -a] [-d DURATION] [-o FILE]
-- example:
--   # ltap record -e kmem:mm_page_alloc -e 'sched:sched_process_*' -c 'make -j2' -o make.dat
--   ltap: command exited with status 0
--   recorded 48213 events of 4 event types in make.dat
--   # ltap --input make.dat pagealloc-postprocess      (or: trace-cmd report make.dat)
--
-- The events go into a trace-cmd trace.dat version 6 (ltap --record): the
-- sub-buffers as the kernel wrote them, the formats, the task names, and
-- the start and end of the run, so a script replayed over the file runs its
-- timers over the recorded span. EVENT may be a glob ("kmem:*"). Without
-- -p or -c the whole system is recorded (-a), until ^C or -d.

local getopt = require("ltap.getopt")
local usage = "usage: record -e EVENT [-e EVENT...] [-p PID | -c CMD | -a] [-d DURATION] [-o FILE]"
local o, rest = getopt(arg, {e = "list", p = "number", c = "value", a = "flag", d = "value", o = "value"}, usage)
if #rest > 0 then error("record: unexpected argument '" .. rest[1] .. "' (" .. usage .. ")", 0) end
if not o.e or #o.e == 0 then error("record: no event to record (" .. usage .. ")", 0) end
if o.a and (o.p or o.c) then error("record: -a records the whole system; -p and -c only a target", 0) end
local file = o.o or "trace.dat"
ltap.options{pid = o.p, command = o.c, duration = o.d, record = file}

local n, types = 0, {}
local function count(e) n = n + 1 types[e.name] = true end
for _, ev in ipairs(o.e) do probe(ev, count) end
finish(function()
  local k = 0
  for _ in pairs(types) do k = k + 1 end
  printf("recorded %d events of %d event type%s in %s\n", n, k, k == 1 and "" or "s", file)
end)

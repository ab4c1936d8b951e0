-- name: pagealloc-postprocess
-- summary: the kernel's trace-pagealloc-postprocess.pl, live or over a saved trace
-- usage: ltap pagealloc-postprocess [-p PID | -c CMD | -a] [-d DURATION] [--ignore-pid] [--read-procstat]
--        [--prepend-parent] [--unknown 'kmem:*']
--        ltap --input FILE|- pagealloc-postprocess [...]     (trace_pipe text or a trace.dat)
-- example:
--   Process            Pages      Pages      Pages    Pages       PCPU     PCPU     PCPU   Fragment Fragment  MigType Fragment Fragment  Unknown
--   details           allocd     allocd      freed    freed      pages   drains  refills   Fallback  Causing  Changed   Severe Moderate
--                            under lock     direct  pagevec      drain
--   make-4242            812          3        640       12          0        0        0          0        0        0        0        0        0
--
-- A port of Documentation/trace/postprocess/trace-pagealloc-postprocess.pl
-- (Mel Gorman, 2009): the same counters per process, the same options, the
-- same columns, the same SIGINT behaviour (the first ^C prints the report
-- 2 s later and goes on; a second within 2 seconds prints it and exits; a
-- fifth in a row, before that exit, exits without a report). Where it differs, on purpose:
--  * it reads the binary events live, or any text variant (irq-flags and
--    tgid columns, comms with spaces, "/" and ":"), where the original's
--    line regex drops lines with the irq-flags column and cuts comms at the
--    first character outside [a-zA-Z0-9-];
--  * extfrag fields come by name, so "pfn=0x..." and reordered fields parse;
--  * --prepend-parent and --read-procstat use the process tree kept from
--    fork/exec/exit events, so exited processes have their parent and name
--    (the original reads /proc/PID/stat and prints UNKNOWN_PROCESS_NAME);
--  * rows are sorted by process (the original prints them in hash order);
--  * "Unknown" counts every other event of a saved trace, as the original
--    counts every other line; live, the events --unknown GLOB names (the
--    original counts whatever the user enabled in trace_pipe).

local getopt = require("ltap.getopt")
local o, rest = getopt{
  {"--ignore-pid", "flag", "one row per process name, not per comm-pid"},
  {"--read-procstat", "flag", "names of tasks the events do not name, from the process tree"},
  {"--prepend-parent", "flag", "the parent before each row's name"},
  {"--unknown", "string", "live: count the events GLOB names in the Unknown column", arg = "GLOB"},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
local tree = (o.prepend_parent or o.read_procstat) and require("ltap.proctree") or nil

local COLUMNS = {"MM_PAGE_ALLOC", "MM_PAGE_ALLOC_ZONE_LOCKED", "MM_PAGE_FREE", "MM_PAGE_FREE_BATCHED",
  "MM_PAGE_PCPU_DRAIN", "HIGH_PCPU_DRAINS", "HIGH_PCPU_REFILLS", "MM_PAGE_ALLOC_EXTFRAG", "HIGH_EXT_FRAG",
  "HIGH_EXT_FRAGMENT_CHANGED", "HIGH_EXT_FRAGMENT_SEVERE", "HIGH_EXT_FRAGMENT_MODERATE", "EVENT_UNKNOWN"}

local perprocesspid = {}

-- rows of plain "comm-pid" keys are cached per task (row() below)
local plain = not (o.read_procstat or o.prepend_parent)

local function name_of(e)
  local comm, pid = e.comm, e.tid
  if o.read_procstat and (comm == "" or comm == "<...>") then
    local p = tree.get(pid)
    comm = p and p.comm or "UNKNOWN_PROCESS_NAME"
  end
  local key = comm .. "-" .. pid
  if o.prepend_parent then
    local p = tree.get(pid)
    local pp = p and p.ppid and tree.get(p.ppid)
    local parent = pid == 0 and "NOPARENT-0" or pp and (pp.comm .. "-" .. pp.pid) or
      (p and p.ppid and ("UNKNOWN_PROCESS_NAME-" .. p.ppid)) or "UNKNOWN_PROCESS_NAME--1"
    key = parent .. " :: " .. key
  end
  return key
end

local function stats_of(key)
  local s = perprocesspid[key]
  if not s then s = {}; perprocesspid[key] = s end
  return s
end

local function inc(s, what) s[what] = (s[what] or 0) + 1 end

-- a run of pcpu drains (or of refills) in one process is one drain (refill)
local function close_runs(s, event)
  if (s.STATE_PCPU_PAGES_DRAINED or 0) > 0 and event ~= "mm_page_pcpu_drain" then
    inc(s, "HIGH_PCPU_DRAINS"); s.STATE_PCPU_PAGES_DRAINED = 0
  end
  if (s.STATE_PCPU_PAGES_REFILLED or 0) > 0 and event ~= "mm_page_alloc_zone_locked" then
    inc(s, "HIGH_PCPU_REFILLS"); s.STATE_PCPU_PAGES_REFILLED = 0
  end
end

-- the row of a task, found once per task and name, not once per event
local row_of, row_comm = {}, {}
local function row(e)
  if not plain then return stats_of(name_of(e)) end
  local tid, comm = e.tid, e.comm
  local s = row_of[tid]
  if s and row_comm[tid] == comm then return s end
  s = stats_of(name_of(e))
  row_of[tid], row_comm[tid] = s, comm
  return s
end

local exiting
local function handle(e, event, fn)
  if exiting then return exit() end
  local s = row(e)
  fn(s, e)
  close_runs(s, event)
end

-- kernels since 2016 print fragmenting (fallback_order < pageblock_order)
-- and pageblock_order without recording them: the fields are not there
local PAGEBLOCK_ORDER = 9
local function field(e, name)
  local ok, v = pcall(function() return e[name] end)
  return ok and tonumber(v) or nil
end

-- what a fallback tells beyond its count
local function extfrag(s, e)
  local fallback_order = field(e, "fallback_order")
  local fragmenting = field(e, "fragmenting")
  if fragmenting == nil and fallback_order then
    fragmenting = fallback_order < (field(e, "pageblock_order") or PAGEBLOCK_ORDER) and 1 or 0
  end
  if fragmenting and fragmenting ~= 0 then
    inc(s, "HIGH_EXT_FRAG")
    if fallback_order and fallback_order <= 3 then inc(s, "HIGH_EXT_FRAGMENT_SEVERE") else inc(s, "HIGH_EXT_FRAGMENT_MODERATE") end
  end
  local change = tonumber(e.change_ownership)
  if change and change ~= 0 then inc(s, "HIGH_EXT_FRAGMENT_CHANGED") end
end

-- ltap --record's own start/end marks (trace_marker writes) are not events of the run
local function ltap_mark(e)
  return tostring(e.buf):match("^ltap%-record ") ~= nil
end

-- The fast path: with neither --read-procstat nor --prepend-parent (a row is
-- "comm-tid") nor a live --unknown GLOB (which may overlap the kmem events),
-- every counter is an aggregate fed in C (s:by): no Lua per event but for
-- the rare drains, refills and fallbacks. A run of drains (refills) in a
-- process is found from the process's count of every event it had: the
-- previous event was a drain when that count moved by exactly one since the
-- last drain. Unknown is every event less the known ones. Reading a pipe,
-- the handlers' path keeps the original's end at the next line after a
-- second ^C (no line may come for a while, and no handler runs to see it).
local fast = plain and not (ltap.live and o.unknown) and ltap.input ~= "-"
local KEY = {"comm", "tid"}
local fed, every_event, marks, extfrags = {}, nil, {}, {}
local runs, last = {DRAINS = {}, REFILLS = {}}, {DRAINS = {}, REFILLS = {}}

if fast then
  every_event = stats()
  local known = {mm_page_alloc = "MM_PAGE_ALLOC", mm_page_alloc_zone_locked = "MM_PAGE_ALLOC_ZONE_LOCKED",
    mm_page_free = "MM_PAGE_FREE", mm_page_free_batched = "MM_PAGE_FREE_BATCHED",
    mm_page_pcpu_drain = "MM_PAGE_PCPU_DRAIN", mm_page_alloc_extfrag = "MM_PAGE_ALLOC_EXTFRAG"}
  -- declared first: a drain's own event is in its process's count when its handler runs
  if ltap.live then
    for ev in pairs(known) do probe("kmem:" .. ev, every_event:by(KEY)) end
  else
    probe("*:*", every_event:by(KEY))
    pcall(probe, "ftrace:print", function(e)
      if ltap_mark(e) then
        local k = e.comm .. "-" .. e.tid
        marks[k] = (marks[k] or 0) + 1
      end
    end)
  end
  for ev, col in pairs(known) do
    fed[col] = stats()
    pcall(probe, "kmem:" .. ev, fed[col]:by(KEY))
  end
  -- by comm, then tid: no "comm-tid" string made per drain
  local function run_of(what)
    local count, open = runs[what], last[what]
    return function(e)
      if exiting then return exit() end
      local comm, tid = e.comm, e.tid
      local n = every_event:count(comm, tid)
      if next(marks) then n = n - (marks[comm .. "-" .. tid] or 0) end
      local o = open[comm]
      if not o then o = {}; open[comm] = o end
      if o[tid] ~= n - 1 then
        local c = count[comm]
        if not c then c = {}; count[comm] = c end
        c[tid] = (c[tid] or 0) + 1
      end
      o[tid] = n
    end
  end
  pcall(probe, "kmem:mm_page_pcpu_drain", run_of("DRAINS"))
  pcall(probe, "kmem:mm_page_alloc_zone_locked", run_of("REFILLS"))
  pcall(probe, "kmem:mm_page_alloc_extfrag", function(e)
    if exiting then return exit() end
    local k = e.comm .. "-" .. e.tid
    extfrags[k] = extfrags[k] or {}
    extfrag(extfrags[k], e)
  end)
end

-- Live, one probe per event. Over a saved trace one probe takes every
-- event, since "Unknown" counts every other event of the input, as the
-- original counts every other line.
local by_name, live = {}, ltap.live
local function on(event, fn)
  by_name["kmem:" .. event] = {event, fn}
  by_name[event] = by_name["kmem:" .. event] -- a text trace without local formats
  if live and not fast then probe("kmem:" .. event, function(e) handle(e, event, fn) end) end
end

local function unknown_event(s) inc(s, "EVENT_UNKNOWN") end
local function all_events(glob)
  probe(glob, function(e)
    local name = e.name
    local h = by_name[name]
    if h then
      if not live then handle(e, h[1], h[2]) end
      return
    end
    if name == "ftrace:print" and ltap_mark(e) then return end
    handle(e, name, unknown_event)
  end)
end

on("mm_page_alloc", function(s) inc(s, "MM_PAGE_ALLOC") end)
on("mm_page_free", function(s) inc(s, "MM_PAGE_FREE") end)
on("mm_page_free_batched", function(s) inc(s, "MM_PAGE_FREE_BATCHED") end)
on("mm_page_pcpu_drain", function(s) inc(s, "MM_PAGE_PCPU_DRAIN") inc(s, "STATE_PCPU_PAGES_DRAINED") end)
on("mm_page_alloc_zone_locked", function(s) inc(s, "MM_PAGE_ALLOC_ZONE_LOCKED") inc(s, "STATE_PCPU_PAGES_REFILLED") end)
on("mm_page_alloc_extfrag", function(s, e) inc(s, "MM_PAGE_ALLOC_EXTFRAG") extfrag(s, e) end)

if fast then
elseif not ltap.live then all_events("*:*")
elseif o.unknown then all_events(o.unknown) end

-- the fast path's rows, made anew from its aggregates for each report
local function fast_rows()
  perprocesspid = {}
  for k, v in sorted(every_event) do
    local key = k[1] .. "-" .. k[2]
    local n = v.count - (marks[key] or 0)
    -- a task of ltap's marks alone has no row
    if n > 0 then stats_of(key).EVENT_UNKNOWN = n end
  end
  for col, agg in pairs(fed) do
    for k, v in sorted(agg) do
      local s = stats_of(k[1] .. "-" .. k[2])
      s[col] = v.count
      s.EVENT_UNKNOWN = s.EVENT_UNKNOWN - v.count
    end
  end
  for key, s in pairs(extfrags) do
    local row = stats_of(key)
    for c, n in pairs(s) do row[c] = n end
  end
  for what, count in pairs(runs) do
    for comm, c in pairs(count) do
      for tid, n in pairs(c) do stats_of(comm .. "-" .. tid)["HIGH_PCPU_" .. what] = n end
    end
    -- a report closes the open runs, as the original's does
    for comm in pairs(last[what]) do last[what][comm] = nil end
  end
end

local function aggregate()
  if not o.ignore_pid then return perprocesspid end
  local per = {}
  for key, s in pairs(perprocesspid) do
    local process = key:gsub("%-[0-9]*$", "")
    if process == "" then process = "NO_PROCESS_NAME" end
    local a = per[process] or {}
    per[process] = a
    for _, c in ipairs(COLUMNS) do a[c] = (a[c] or 0) + (s[c] or 0) end
  end
  return per
end

local function report_now()
  if fast then fast_rows() end
  for _, s in pairs(perprocesspid) do
    -- runs still open count too
    if (s.STATE_PCPU_PAGES_DRAINED or 0) > 0 then inc(s, "HIGH_PCPU_DRAINS"); s.STATE_PCPU_PAGES_DRAINED = 0 end
    if (s.STATE_PCPU_PAGES_REFILLED or 0) > 0 then inc(s, "HIGH_PCPU_REFILLS"); s.STATE_PCPU_PAGES_REFILLED = 0 end
  end
  local stats = aggregate()
  local keys, width = {}, 0
  for k in pairs(perprocesspid) do width = math.max(width, #k) end
  width = width + 2
  for k in pairs(stats) do keys[#keys + 1] = k end
  table.sort(keys)
  local f = "%-" .. width .. "s %8s %10s   %8s %8s   %8s %8s %8s   %8s %8s %8s %8s %8s %8s\n"
  printf("\n")
  printf(f, "Process", "Pages", "Pages", "Pages", "Pages", "PCPU", "PCPU", "PCPU", "Fragment", "Fragment", "MigType", "Fragment", "Fragment", "Unknown")
  printf(f, "details", "allocd", "allocd", "freed", "freed", "pages", "drains", "refills", "Fallback", "Causing", "Changed", "Severe", "Moderate", "")
  printf(f, "", "", "under lock", "direct", "pagevec", "drain", "", "", "", "", "", "", "", "")
  local row = "%-" .. width .. "s %8d %10d   %8d %8d   %8d %8d %8d   %8d %8d %8d %8d %8d %8d\n"
  for _, k in ipairs(keys) do
    local s, v = stats[k], {}
    for i, c in ipairs(COLUMNS) do v[i] = s[c] or 0 end
    printf(row, k, table.unpack(v))
  end
end

-- As the original: the report of a first SIGINT comes 2 s later unless
-- another SIGINT comes first; a second within 2 s ends the run with the
-- report, at the next event or tick (the original leaves its read loop at
-- the next line); a fifth, each within 2 s of the one before, before that
-- happens, ends it at once without one.
local pending, quick = nil, 0
ltap.on_interrupt(function(n, since)
  if pending then cancel(pending); pending = nil end
  if since > 2 then
    quick = 0
    printf("SIGINT received, report pending. Hit ctrl-c again to exit\n")
    pending = after(2, function() pending = nil report_now() end)
    return
  end
  quick = quick + 1
  if quick == 1 then printf("Second SIGINT received quickly, exiting\n") end
  if quick > 3 then
    printf("Many SIGINTs received, exiting now without report\n")
    return "quit"
  end
  if not exiting then
    exiting = true
    if ltap.live then every("100ms", function() exit() end) end
  end
end)

finish(report_now)

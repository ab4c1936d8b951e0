-- ltap-args: --input ../data/getppid-pages.dat
-- Handlers run in C (bindings/lower.c): each handler of the shapes ltap
-- lowers, beside a twin that reads the same fields in a shape it does not
-- (a local first), over a saved trace: the same rows, and probe_hits()
-- says which ran in C. Then the handler's aggregate replaced by a Lua
-- handler mid-trace, and its method replaced: from then on the handler
-- runs in Lua, and the rows still match the twin's.
local cases = {
  {"syscalls:sys_enter_getppid", function(s) return function(e) s:inc(e.comm) end end,
    function(s) return function(e) local k = e.comm s:inc(k) end end},
  {"syscalls:sys_enter_getppid", function(s) return function(e) s:inc(e.pid, e.tid) end end,
    function(s) return function(e) local k = e.pid s:inc(k, e.tid) end end},
  {"syscalls:sys_enter_getppid", function(s) return function(e) s:inc(e.name, e.cpu) end end,
    function(s) return function(e) local k = e.name s:inc(k, e.cpu) end end},
  {"kmem:mm_page_alloc", function(s) return function(e) s:add(e.comm, e.order) end end,
    function(s) return function(e) local k = e.comm s:add(k, e.order) end end},
  {"kmem:mm_page_alloc", function(s) return function(e) s:add(e.migratetype, e.pfn) end end,
    function(s) return function(e) local k = e.migratetype s:add(k, e.pfn) end end},
  {"kmem:mm_page_alloc", function(s) return function(e) s:add(e.comm, e.cpu, e.order, e.pfn) end end,
    function(s) return function(e) local k = e.comm s:add(k, e.cpu, e.order, e.pfn) end end, {hist = "log2"}},
  {"sched:sched_process_exec", function(s) return function(e) s:inc(e.filename) end end,
    function(s) return function(e) local k = e.filename s:inc(k) end end},
  {"task:task_rename", function(s) return function(e) s:inc(e.oldcomm, e.newcomm, e.pid) end end,
    function(s) return function(e) local k = e.oldcomm s:inc(k, e.newcomm, e.pid) end end},
  -- not lowered: the time is no s:by name; a global is not the handler's own
  {"syscalls:sys_enter_getppid", function(s) return function(e) s:inc(e.time) end end,
    function(s) return function(e) local k = e.time s:inc(k) end end},
  {"syscalls:sys_enter_getppid", function(s) G = s return function(e) G:inc(e.comm) end end,
    function(s) return function(e) local k = e.comm s:inc(k) end end},
}
local want_in_c = {true, true, true, true, true, true, true, true, false, false}

for _, c in ipairs(cases) do
  c.low, c.twin = stats(c[4]), stats(c[4])
  probe(c[1], c[2](c.low))
  probe(c[1], c[3](c.twin))
end

-- the aggregate replaced, and a method replaced, by Lua handlers at the
-- first exec: both handlers then run in Lua (their twins likewise)
local a, a_twin = stats(), stats()
probe("syscalls:sys_enter_getppid", function(e) a:inc(e.comm) end)
probe("syscalls:sys_enter_getppid", function(e) local k = e.comm a_twin:inc(k) end)
local m, m_twin, m_other = stats(), stats(), stats()
probe("syscalls:sys_enter_getppid", function(e) m:inc(e.tid) end)
probe("syscalls:sys_enter_getppid", function(e) local k = e.tid m_twin:inc(k) end)
local first_a, first_a_twin = a, a_twin
local execs = 0
probe("sched:sched_process_exec", function(e)
  execs = execs + 1
  if execs == 2 then
    a, a_twin = stats(), stats()
    m.inc = function(_, k) m_other:inc(k) end
  end
end)

local function rows(s)
  local out = {}
  for k, v in sorted(s, "count") do
    if type(k) == "table" then k = table.concat(k, "|") end
    out[#out + 1] = string.format("  %s count=%d sum=%s", tostring(k), v.count, tostring(v.sum))
  end
  return out
end

local function same(x, y)
  local a, b = rows(x), rows(y)
  local ok = #a == #b and #a > 0
  for j = 1, #a do ok = ok and a[j] == b[j] end
  return ok, a
end

finish(function()
  local hits = ltap.probe_hits()
  for i, c in ipairs(cases) do
    local ok, a = same(c.low, c.twin)
    local low, twin = hits[2 * i - 1], hits[2 * i]
    printf("%d %s: %d rows, %s; %s, %s; hits %d/%d\n", i, c[1], #a, ok and "as the twin's" or "DIFFERENT",
      low.in_c and "in C" or "in Lua", low.in_c == want_in_c[i] and "as expected" or "NOT AS EXPECTED",
      low.hits, twin.hits)
    for j = 1, math.min(#a, 2) do print(a[j]) end
  end
  local n = #cases * 2
  printf("replaced aggregate: before %s, after %s; %s\n", select(1, same(first_a, first_a_twin)) and "same" or "DIFFERENT",
    select(1, same(a, a_twin)) and "same" or "DIFFERENT", hits[n + 1].in_c and "in C" or "in Lua")
  print(rows(first_a)[1], rows(a)[1])
  printf("replaced method: before %s, after %s; %s\n", #rows(m) > 0 and "counted" or "NONE",
    #rows(m_other) > 0 and "counted by the new method" or "NONE", hits[n + 3].in_c and "in C" or "in Lua")
  local total = 0
  for _, v in sorted(m) do total = total + v.count end
  for _, v in sorted(m_other) do total = total + v.count end
  local twin_total = 0
  for _, v in sorted(m_twin) do twin_total = twin_total + v.count end
  printf("  %d events in all, the twin %d\n", total, twin_total)
end)

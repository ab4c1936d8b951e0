-- ltap-args: --input ../data/getppid-pages.dat
-- s:by: aggregates fed in C over a saved trace, each beside the same
-- aggregate fed from a Lua handler: every key source (comm, pid, tid, cpu,
-- name, syscall, a format's number, a string field) and value (a field,
-- 1 << a field, a count) gives the same rows, and the rows are printed.
local cases = {
  {"syscalls:sys_enter_getppid", "comm", nil, function(e) return {e.comm}, 1 end},
  {"syscalls:sys_enter_getppid", {"pid", "tid"}, nil, function(e) return {e.pid, e.tid}, 1 end},
  {"syscalls:sys_enter_getppid", {"name", "syscall"}, nil, function(e) return {e.name, "getppid"}, 1 end},
  {"kmem:mm_page_alloc", {"comm", "migratetype"}, "order", function(e) return {e.comm, e.migratetype}, e.order end},
  {"kmem:mm_page_alloc", "cpu", "1 << order", function(e) return {e.cpu}, 1 << e.order end},
  {"kmem:mm_page_alloc", {}, "pfn", function(e) return {}, e.pfn end},
  {"sched:sched_process_exec", {"filename", "args.pid"}, nil, function(e) return {e.filename, e.args.pid}, 1 end},
  {"task:task_rename", {"oldcomm", "newcomm"}, "oom_score_adj", function(e) return {e.oldcomm, e.newcomm}, e.oom_score_adj end},
}
for _, c in ipairs(cases) do
  c.fed, c.lua = stats(), stats()
  probe(c[1], c.fed:by(c[2], c[3]))
  local key = c[4]
  probe(c[1], function(e)
    local k, v = key(e)
    k[#k + 1] = v
    c.lua:add(table.unpack(k))
  end)
end

local function rows(s)
  local out = {}
  for k, v in sorted(s, "count") do
    if type(k) == "table" then k = table.concat(k, "|") end
    out[#out + 1] = string.format("  %s count=%d sum=%d min=%d max=%d", tostring(k), v.count, v.sum, v.min, v.max)
  end
  return out
end

finish(function()
  for i, c in ipairs(cases) do
    local a, b = rows(c.fed), rows(c.lua)
    local same = #a == #b and #a > 0
    for j = 1, #a do same = same and a[j] == b[j] end
    printf("%d %s by %s%s: %d rows, %s\n", i, c[1], type(c[2]) == "table" and table.concat(c[2], ",") or c[2],
      c[3] and (" value " .. c[3]) or "", #a, same and "as the Lua handler's" or "DIFFERENT")
    for j = 1, math.min(#a, 3) do print(a[j]) end
  end
end)

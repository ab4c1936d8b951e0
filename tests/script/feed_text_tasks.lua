-- ltap-args: --input ../data/text-tasks.txt
-- Each line of a text names its task: a tid renamed in a run of its lines
-- (bash, make, bash again), the same task on another CPU and a tgid column
-- give every event the comm and pid its line shows, to the aggregates fed
-- in C and to a Lua handler alike.
local fed, lua = stats(), stats()
probe("*:*", fed:by{"comm", "tid", "pid"})
probe("*:*", function(e) lua:inc(e.comm, e.tid, e.pid) end)
finish(function()
  local a, b = {}, {}
  for k, v in sorted(fed) do a[#a + 1] = string.format("%s-%d pid %d: %d", k[1], k[2], k[3], v.count) end
  for k, v in sorted(lua) do b[#b + 1] = string.format("%s-%d pid %d: %d", k[1], k[2], k[3], v.count) end
  print(table.concat(a, "\n") == table.concat(b, "\n") and "fed as the Lua handler's" or "DIFFERENT")
  for _, row in ipairs(a) do print(row) end
end)

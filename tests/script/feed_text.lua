-- ltap-args: --input ../data/pagealloc-live.txt
-- s:by over the kernel's trace text: the events decoded by their local
-- formats feed the aggregate in C as a trace.dat's do, the same rows as a
-- Lua handler's; and an event of the text with no such field is an error
-- naming it, when the probe is declared.
local fed, lua = stats(), stats()
probe("kmem:mm_page_alloc", fed:by({"comm", "migratetype"}, "1 << order"))
probe("kmem:mm_page_alloc", function(e) lua:add(e.comm, e.migratetype, 1 << e.order) end)
local ok, err = pcall(probe, "kmem:mm_page_alloc", stats():by("comm", "bytes_alloc"))
print(ok, err)
finish(function()
  local a, b = {}, {}
  for k, v in sorted(fed, "sum") do a[#a + 1] = string.format("%s|%s %d %d", k[1], k[2], v.count, v.sum) end
  for k, v in sorted(lua, "sum") do b[#b + 1] = string.format("%s|%s %d %d", k[1], k[2], v.count, v.sum) end
  printf("%d rows, %s\n", #a, table.concat(a, "\n") == table.concat(b, "\n") and #a > 0 and "as the Lua handler's" or "DIFFERENT")
  for i = 1, math.min(#a, 5) do print(a[i]) end
end)

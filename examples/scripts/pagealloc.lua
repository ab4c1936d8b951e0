-- name: pagealloc
-- summary: page allocations per process name, printed and reset every 5 seconds
-- usage: ltap pagealloc.lua [-p PID | -c CMD | -d DURATION]
-- example:
--   #Pages Allocated          Process Name
--   9630                      Xorg
--   2143                      firefox
--
-- The SystemTap example of the kernel's tracepoint-analysis notes
-- (Documentation/trace/tracepoint-analysis.rst) in a few lines: one count
-- per kmem:mm_page_alloc event, whatever its order, by the comm of the task
-- that allocated. The bundled `ltap pagealloc` counts pages (2^order an
-- event) and has options.

local allocs = {}
probe("kmem:mm_page_alloc", function(e)
  allocs[e.comm] = (allocs[e.comm] or 0) + 1
end)
every("5s", function()
  printf("%-25s %s\n", "#Pages Allocated", "Process Name")
  for comm, n in sorted(allocs, "desc") do printf("%-25d %s\n", n, comm) end
  print(); allocs = {}
end)

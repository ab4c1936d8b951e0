-- name: pagealloc
-- summary: pages allocated per process name, printed and reset every interval
-- usage: ltap pagealloc [INTERVAL]    (INTERVAL: seconds or "5s", default 5)
-- example:
--   #Pages Allocated          Process Name
--   9630                      Xorg
--   2143                      firefox
--
-- The SystemTap example of the kernel's tracepoint-analysis notes: counts
-- kmem:mm_page_alloc per comm, prints the table sorted by count, resets it.
-- At the end of the run the last, partial interval is printed too.

local interval = arg[1] or "5s"
if tonumber(interval) then interval = tonumber(interval) end

local allocs = {}

probe("kmem:mm_page_alloc", function(e)
  allocs[e.comm] = (allocs[e.comm] or 0) + 1
end)

local function report()
  printf("%-25s %s\n", "#Pages Allocated", "Process Name")
  for comm, n in sorted(allocs, "desc") do
    printf("%-25d %s\n", n, comm)
  end
  print()
  allocs = {}
end

every(interval, report)
finish(report)

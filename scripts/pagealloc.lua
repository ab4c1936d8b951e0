-- name: pagealloc
-- summary: pages allocated per process name, printed and reset every interval
-- usage: ltap pagealloc [INTERVAL]    (INTERVAL: seconds or "5s", default 5)
-- example:
--   #Pages Allocated          Process Name
--   9630                      Xorg
--   2143                      firefox
--
-- The SystemTap example of the kernel's tracepoint-analysis notes: counts
-- kmem:mm_page_alloc per comm (2^order pages per event), prints the table
-- sorted by count, resets it. At the end of the run the last, partial
-- interval is printed too. With --format json each interval is one document.

local interval = arg[1] or "5s"
if tonumber(interval) then interval = tonumber(interval) end

local pages = stats()

probe("kmem:mm_page_alloc", function(e)
  pages:add(e.comm, 1 << e.order)
end)

local function interval_report()
  report(pages, {by = "sum", keys = {"comm"}, fields = {"sum"},
    header = string.format("%-25s %s", "#Pages Allocated", "Process Name"),
    row = function(comm, st) return string.format("%-25d %s", st.sum, comm) end})
  print()
  pages:clear()
end

every(interval, interval_report)
finish(interval_report)

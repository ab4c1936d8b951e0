-- name: pagealloc
-- summary: pages allocated per process name, printed and reset every interval
-- usage: ltap pagealloc [-p PID | -c CMD | -a] [-d DURATION] [--events] [INTERVAL]
--        (INTERVAL: seconds or "5s", default 5)
-- example:
--   #Pages Allocated          Process Name
--   9630                      Xorg
--   2143                      firefox
--
-- After the SystemTap example of the kernel's tracepoint-analysis notes
-- (Documentation/trace/tracepoint-analysis.rst): kmem:mm_page_alloc per
-- comm, the table sorted by count and reset every interval. What is counted:
-- pages, 2^order per event (an order-3 allocation is 8 pages), true to the
-- header. The SystemTap original counts events (page_allocs[execname()]++,
-- one per allocation whatever its order) under the same header: --events
-- counts that way and reproduces it. The two differ only by allocations of
-- order > 0. At the end of the run the last, partial interval is printed
-- too. With --format json each interval is one document.

local getopt = require("ltap.getopt")
local o, rest = getopt{
  {"--events", "flag", "count allocations (events), as the SystemTap original, not pages"},
  targets = true,
}
if #rest > 1 then getopt.error("unexpected argument '" .. rest[2] .. "'") end
local interval = getopt.value("duration", rest[1] or "5s", "INTERVAL", {min = 1})

local pages = stats()

-- counted in C, no Lua per allocation (s:by): an event each, or 2^order pages
probe("kmem:mm_page_alloc", pages:by("comm", not o.events and "1 << order" or nil))

local function interval_report()
  report(pages, {by = "sum", keys = {"comm"}, fields = {"sum"},
    header = string.format("%-25s %s", "#Pages Allocated", "Process Name"),
    row = function(comm, st) return string.format("%-25d %s", st.sum, comm) end})
  print()
  pages:clear()
end

every(interval / 1e9, interval_report)
finish(interval_report)

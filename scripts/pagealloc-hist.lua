-- name: pagealloc-hist
-- summary: log2 histogram of page allocation sizes (2^order pages) per process
-- usage: ltap pagealloc-hist [-p PID | -c CMD | -a] [-d DURATION] [-i INTERVAL] [-n TOP]
-- example:
--   @[firefox]: count 2143, avg 4403.20, min 4096, max 65536
--   [4K, 8K)          2101 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
--   [8K, 16K)           30 |                                                    |
--   [64K, 128K)         12 |                                                    |
--
-- One kmem:mm_page_alloc event allocates 2^order pages; the histogram is of
-- the bytes per allocation, so each order is one bucket. The TOP processes
-- by number of allocations are shown, at the end of the run or every
-- INTERVAL (then reset).

local getopt = require("ltap.getopt")
local o, rest = getopt{
  {"-i, --interval", "duration", "print and reset the histograms every INTERVAL (default: only at the end)",
    arg = "INTERVAL"},
  {"-n, --top", "integer", "the TOP processes with the most allocations", default = 10, min = 1, arg = "TOP"},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
local top = o.top

local page_size = 4096
local sizes = stats{hist = "log2"}

probe("kmem:mm_page_alloc", function(e)
  sizes:add(e.comm, page_size << e.order)
end)

local function show()
  report(sizes, {top = top, keys = {"comm"}})
  print()
  sizes:clear()
end

if o.interval and o.interval > 0 then every(o.interval / 1e9, show) end
finish(show)

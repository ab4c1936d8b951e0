-- name: pagealloc-hist
-- summary: log2 histogram of page allocation sizes (2^order pages) per process
-- usage: ltap [-p PID | -c CMD] pagealloc-hist [-i INTERVAL] [-n TOP]
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

local usage = "usage: pagealloc-hist [-i INTERVAL] [-n TOP]"
local o, rest = require("ltap.getopt")(arg, {i = "value", n = "number"}, usage)
if #rest > 0 then error("pagealloc-hist: unexpected argument '" .. rest[1] .. "' (" .. usage .. ")", 0) end
local interval, top = o.i, o.n or 10
if math.type(top) ~= "integer" or top < 1 then error("pagealloc-hist: -n needs a positive number", 0) end
if interval and tonumber(interval) then interval = tonumber(interval) end

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

if interval then every(interval, show) end
finish(show)

-- ltap-args: --input ../data/malformed.txt
-- Damaged text: garbage, binary noise, truncated lines are counted (stderr)
-- and skipped; the run goes on.
local n, orders = 0, {}
probe("kmem:mm_page_alloc", function(e) n = n + 1 orders[#orders + 1] = tostring(e.order) end)
finish(function() printf("events=%d orders=%s live=%s\n", n, table.concat(orders, ","), tostring(ltap.live)) end)

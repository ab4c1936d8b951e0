-- ltap-args: --input ../data/empty.txt
-- An empty trace: no event, the finish hook still runs.
local n = 0
probe("kmem:mm_page_alloc", function() n = n + 1 end)
finish(function() printf("events=%d\n", n) end)

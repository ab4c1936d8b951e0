-- name: pagealloc-exporter
-- summary: pages allocated per process name, continuously, as Prometheus counters (--serve)
-- usage: ltap --serve [ADDR:]PORT pagealloc-exporter [-p PID | -c CMD | -a] [-d DURATION] [MAX_KEYS]
--        (MAX_KEYS: process names kept, default 10000)
-- example:
--   # TYPE pagealloc_pages_total counter
--   pagealloc_pages_total{comm="Xorg"} 9630
--   pagealloc_pages_total{comm="firefox"} 2143
--   # TYPE pagealloc_allocations_total counter
--   pagealloc_allocations_total{comm="Xorg"} 9604
--
-- The pagealloc report's question, asked of every machine of a fleet at
-- once: kmem:mm_page_alloc per comm, as two counters over one aggregate,
-- the allocations (events) and the pages (2^order each). Nothing is reset:
-- Prometheus takes the rates. The names a run keeps are bounded by
-- MAX_KEYS; allocations of names beyond it are counted in
-- ltap_metric_dropped_total.
--
-- Prometheus (prometheus.yml):
--   scrape_configs:
--     - job_name: ltap-pagealloc
--       static_configs: [{targets: ["HOST:9101"]}]
-- PromQL: the ten processes allocating the most pages, fleet-wide, per second:
--   topk(10, sum by (comm) (rate(pagealloc_pages_total[5m])))

local getopt = require("ltap.getopt")
local _, rest = getopt{targets = true}
if #rest > 1 then getopt.error("unexpected argument '" .. rest[2] .. "'") end
local max_keys = getopt.value("integer", rest[1] or 10000, "MAX_KEYS", {min = 1})
if not ltap.serving then
  io.stderr:write("pagealloc-exporter: nothing is printed; serve the metrics with ltap --serve PORT pagealloc-exporter\n")
end

local allocs = stats{max_keys = max_keys, full = "drop"}
metrics.counter("pagealloc_allocations_total", {source = allocs, value = "count", labels = {"comm"},
  help = "Page allocations (kmem:mm_page_alloc events) by process name"})
metrics.counter("pagealloc_pages_total", {source = allocs, value = "sum", labels = {"comm"},
  help = "Pages allocated (2^order per kmem:mm_page_alloc) by process name"})

-- counted in C, no Lua per allocation (s:by): 2^order pages per event
probe("kmem:mm_page_alloc", allocs:by("comm", "1 << order"))

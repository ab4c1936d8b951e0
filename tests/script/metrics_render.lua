-- metrics.*: exactly what a scrape gets, in both formats (metrics.render),
-- and every mistake in a declaration as its message.
local function try(f, ...)
  local ok, err = pcall(f, ...)
  print(ok and "no error" or (err:gsub("^.-metrics_render.lua:", "metrics_render.lua:")))
end
local function declare(kind, name, opts) return function() metrics[kind](name, opts) end end

-- a counter over the aggregate it makes: inc and add, escaping, bad UTF-8
local calls = metrics.counter("calls_total", {help = "Calls by comm\nsecond line \\ backslash", labels = {"comm"}})
-- two counters over one aggregate: its count and its sum
local bytes = stats()
metrics.counter("reads_total", {source = bytes, value = "count", labels = {"comm", "fd"}, help = "reads"})
metrics.counter("read_bytes_total", {source = bytes, labels = {"comm", "fd"}, help = "bytes read"})
-- log2 histogram with negative, zero and large values; linear with a scale
local lat = metrics.histogram("lat", {labels = {"op"}, help = "latency"})
local lin = stats{hist = "linear", min = 0, max = 100, step = 25}
metrics.histogram("wait_seconds", {source = lin, scale = 0.001, help = "milliseconds in, seconds out"})
-- gauges: over a table (one level per label), a function, an aggregate's sum
local temps = {cpu0 = {core = 41.5, pkg = 45}, cpu1 = {core = 39}}
metrics.gauge("temp_celsius", {source = temps, labels = {"cpu", "sensor"}, help = "temperatures"})
metrics.gauge("answer", {source = function() return 42 end, help = "computed at each scrape"})
local inflight = metrics.gauge("inflight", {labels = {"queue"}, help = "up and down"})
-- a full aggregate drops new keys and counts them
local small = metrics.counter("small_total", {labels = {"k"}, max_keys = 2, help = "two keys at most"})
-- a keyless counter
local all = metrics.counter("everything_total", {help = "no labels"})
-- not exported, with a warning each: keys of 2 parts for 1 label; a function giving text
local wrong = metrics.counter("wrong_total", {labels = {"a"}, help = "wrong"})
metrics.gauge("text", {source = function() return "text" end, help = "not a number"})

print("-- mistakes")
try(declare("counter", "1bad"))
try(declare("counter", "ok", {labels = {"comm", "bad-label"}}))
try(declare("counter", "ok", {labels = {"__reserved"}}))
try(declare("counter", "ok", {labels = {"a", "a"}}))
try(declare("gauge", "ltap_mine"))
try(declare("gauge", "calls_total"))
try(declare("gauge", "lat_bucket"))
try(declare("histogram", "h", {source = stats()}))
try(declare("histogram", "h", {labels = {"le"}}))
try(declare("gauge", "g", {source = {}}))
try(declare("gauge", "g", {source = 5}))
try(declare("counter", "c", {value = "max"}))
try(declare("counter", "c", {labels = "comm"}))

begin(function()
  try(declare("counter", "late"))
  calls:inc("bash") calls:inc("bash") calls:add("sh", 5)
  calls:inc('quote" and\nnewline\\') calls:inc("bad\xff\xfeutf8")
  -- a byte that is not UTF-8 and the four characters that name it: two series
  calls:add("k\xff", 2) calls:add("k\\xff", 3)
  bytes:add("cat", 3, 100) bytes:add("cat", 3, 28) bytes:add("dd", 0, 4096)
  for _, v in ipairs{-5, 0, 1, 3, 4, 1000} do lat:add("read", v) end
  lat:add("write", 2)
  for _, v in ipairs{0, 24, 25, 99, 100, 250, -1} do lin:add(v) end
  inflight:add("q1", 3) inflight:add("q1", -1) inflight:add("q2", 0.5)
  small:inc("a") small:inc("b") small:inc("c") small:inc("c") small:inc("a")
  all:inc() all:add(2.5)
  wrong:inc("x", "y")
  print("-- text")
  io.write(metrics.render("text", {ltap = false}))
  print("-- openmetrics")
  io.write(metrics.render("openmetrics", {ltap = false}))
  print("-- ltap_metric_*")
  for line in metrics.render():gmatch("[^\n]+") do
    if line:match("^ltap_metric_") then print(line) end
  end
  exit()
end)

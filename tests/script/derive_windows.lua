-- ltap-args: --input ../data/getppid-pages.dat
-- derive.windows over a saved trace: tumbling and sliding windows, per key and
-- global, a value, a filter, a list of events. Every window it reports is
-- checked against a brute-force recount from the raw events (e:copy()), and
-- the time each was reported at (ltap.now()) shows the timer closing them.
local derive = require("ltap.derive")

local function ms(ns) return string.format("%.3f", ns / 1e6) end

-- the bad declarations: an error at the caller's line, nothing declared
local function try(o)
  local ok, err = pcall(function() derive.windows(o) end)
  print(ok and "accepted" or (tostring(err):gsub("^.-([^/]+%.lua:%d+: )", "%1")))
end
local nop = function() end
try{event = "kmem:mm_page_alloc", size = "1s", slide = "300ms", fn = nop}
try{event = "kmem:mm_page_alloc", size = "1ms", slide = "2ms", fn = nop}
try{event = "kmem:mm_page_alloc", size = "2s", slide = "1ms", fn = nop}
try{event = "kmem:mm_page_alloc", size = "1s", slide = "1 ms", fn = nop}
try{event = "kmem:mm_page_alloc", size = "0s", fn = nop}
try{event = "kmem:mm_page_alloc", size = "1s"}

-- The event path alone, which the aligned timer leaves nothing to do in an
-- ordered replay: probe, every, finish and the start time faked for one
-- declaration, events fed by hand (times in ns from 1000). A later event
-- closes the windows of every key, by stop then key; an event older than its
-- key's newest pane, or whose windows are all closed, is late (dropped).
do
  local saved = {probe, every, finish, ltap.start_time}
  local on_event, at_end
  probe = function(_, _, fn) on_event = fn end
  every = function() end
  finish = function(fn) at_end = fn end
  ltap.start_time = function() return 1000 end
  print("by hand, 100ns every 50ns:")
  derive.windows{event = "x", key = "k", size = "100ns", slide = "50ns", value = "v",
    fn = function(w) printf("  [%d, %d) %s count=%d sum=%d\n", w.start, w.stop, w.key, w.count, w.sum) end}
  for _, e in ipairs{{time = 1000, k = "b", v = 1}, {time = 1010, k = "a", v = 2},
                     {time = 1060, k = "b", v = 3}, {time = 1040, k = "b", v = 9},
                     {time = 1049, k = "a", v = 4}, {time = 1230, k = "a", v = 5},
                     {time = 1020, k = "c", v = 9}} do
    printf(" event %d %s\n", e.time, e.k)
    on_event(e)
  end
  print(" end")
  at_end()
  printf("  late: %d\n", derive.stats().late)
  probe, every, finish, ltap.start_time = table.unpack(saved)
end

-- what is declared: size_ns and slide_ns are for the brute force only
local configs = {
  {name = "tumbling 1ms, per comm", size = "1ms", size_ns = 1000000, slide_ns = 1000000,
   event = "kmem:mm_page_alloc", key = "comm"},
  {name = "sliding 1ms every 250us, per comm, bytes", size = "1ms", slide = "250us",
   size_ns = 1000000, slide_ns = 250000, event = "kmem:mm_page_alloc", key = "comm",
   value = function(e) return 4096 << e.order end},
  {name = "sliding 2ms every 1ms, both events, one window", size = "2ms", slide = "1ms",
   size_ns = 2000000, slide_ns = 1000000, event = {"kmem:mm_page_alloc", "syscalls:sys_enter_getppid"}},
  {name = "tumbling 0.5ms, order-0 only, per cpu, sum of order", size = 0.0005,
   size_ns = 500000, slide_ns = 500000, event = "kmem:mm_page_alloc", key = "cpu",
   filter = "order == 0", keep = function(c) return c.order == 0 end, value = "order"},
  {name = "sliding 1s every 1ms (the most windows an event may be in), per comm",
   size = "1s", slide = "1ms", size_ns = 1000000000, slide_ns = 1000000,
   event = "kmem:mm_page_alloc", key = "comm", quiet = true},
}

for _, c in ipairs(configs) do
  c.got = {}
  derive.windows{event = c.event, key = c.key, size = c.size, slide = c.slide,
    filter = c.filter, value = c.value,
    fn = function(w) w.at = ltap.now(); c.got[#c.got + 1] = w end}
end

-- the raw events, kept whole
local raw = {}
for _, ev in ipairs{"kmem:mm_page_alloc", "syscalls:sys_enter_getppid"} do
  probe(ev, function(e) raw[#raw + 1] = e:copy() end)
end

-- every nonempty window [base + j*slide, + size) by testing each event
local function brute(c, base)
  local names = {}
  for _, ev in ipairs(type(c.event) == "table" and c.event or {c.event}) do names[ev] = true end
  local evs, tmin, tmax = {}, math.huge, -math.huge
  for _, e in ipairs(raw) do
    if names[e.name] and (not c.keep or c.keep(e)) then
      evs[#evs + 1] = e
      tmin, tmax = math.min(tmin, e.time), math.max(tmax, e.time)
    end
  end
  local out = {}
  local j0 = (tmin - base) // c.slide_ns - c.size_ns // c.slide_ns
  local j1 = (tmax - base) // c.slide_ns + 1
  for j = j0, j1 do
    local start = base + j * c.slide_ns
    local stop, per, keys = start + c.size_ns, {}, {}
    for _, e in ipairs(evs) do
      if e.time >= start and e.time < stop then
        local k = c.key and (type(c.key) == "function" and c.key(e) or e[c.key]) or "-"
        local w = per[k]
        if not w then
          w = {key = c.key and k or nil, start = start, stop = stop, count = 0}
          per[k] = w
          keys[#keys + 1] = k
        end
        w.count = w.count + 1
        local v = c.value and (type(c.value) == "function" and c.value(e) or e[c.value])
        if v then
          w.sum = (w.sum or 0) + v
          w.min = math.min(w.min or v, v)
          w.max = math.max(w.max or v, v)
        end
      end
    end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do out[#out + 1] = per[k] end
  end
  return out
end

local function line(w, base)
  local s = string.format("[%s, %s) %-12s count=%d", ms(w.start - base), ms(w.stop - base),
    tostring(w.key), w.count)
  if w.sum then s = s .. string.format(" sum=%d min=%d max=%d", w.sum, w.min, w.max) end
  return s
end

finish(function()
  local base, now = ltap.start_time(), ltap.now()
  printf("trace: %d events, %s ms\n", #raw, ms(now - base))
  for _, c in ipairs(configs) do
    printf("\n%s: %d windows\n", c.name, #c.got)
    local want, bad = brute(c, base), 0
    for i = 1, math.max(#want, #c.got) do
      local a, b = want[i] and line(want[i], base), c.got[i] and line(c.got[i], base)
      if a ~= b then
        bad = bad + 1
        printf("  MISMATCH #%d: brute force %s, derive %s\n", i, tostring(a), tostring(b))
      end
      -- reported when the clock reached its end, or at the end of the trace
      local w = c.got[i]
      if w and not (w.at == w.stop or (w.at == now and w.stop > now)) then
        bad = bad + 1
        printf("  LATE #%d: %s reported at %s\n", i, line(w, base), ms(w.at - base))
      end
      if w and not c.quiet then
        printf("  %s%s\n", line(w, base), w.at == w.stop and "" or "  (at the end)")
      end
    end
    printf("  brute force: %d windows, %s\n", #want, bad == 0 and "the same" or bad .. " differences")
  end
  printf("\nlate events: %d\n", derive.stats().late)
end)

-- derive.lua: higher-level events made from low-level ones.
--
--   local derive = require("ltap.derive")
--   -- pairs: a start and an end event matched by key -> one call with the latency
--   derive.pairs{start = "syscalls:sys_enter_read", stop = "syscalls:sys_exit_read",
--                key = "tid", keep = {"fd"},
--                fn = function(ns, start, e) lat:add(e.comm, ns) end}
--   -- runs: consecutive events of one key, no more than `gap` apart -> one call per run
--   derive.runs{event = "kmem:mm_page_pcpu_drain", key = "cpu", gap = "1ms",
--               fn = function(run) drains:add(run.key, run.count) end}
--   -- lines: bytes of a stream, one per event -> one call per line with its first byte's time
--   derive.lines{event = "kvm:kvm_pio", filter = "port == 0x402 && rw == 1", byte = "val",
--                fn = function(l) printf("%.3f %s\n", l.time / 1e9, l.text) end}
--   -- windows: per key, the events of each time window [start, stop) -> one call
--   derive.windows{event = "kmem:mm_page_alloc", key = "comm", size = "1s", slide = "250ms",
--                  value = function(e) return 4096 << e.order end,
--                  fn = function(w) printf("%s %d %d\n", w.key, w.count, w.sum) end}
--
-- key is a field name ("tid", "comm", "fd"; "args.pid" for a format field
-- named like a common one) or a function(e) -> key. keep lists start-event fields
-- to hand to fn (start.time is always there). Starts never matched are
-- bounded: more than max_pending (default 100000) open starts drops the
-- oldest half, counted in derive.stats().dropped.
--
-- windows: w = {key, start, stop, count, sum, min, max} (sum/min/max of value,
-- a field or function, when given); no key is one window over all events.
-- Windows are on a grid of multiples of slide from ltap.start_time(); with
-- slide < size an event is in each of the size/slide windows that contain it.
-- They close (fn(w), in order of w.stop, then key) when the clock reaches
-- their end: an every(slide) timer or a later event, and at the end of the
-- run. Per key only panes of slide are kept, so an event costs O(1) and a
-- closing window O(size/slide); size/slide must be a whole number <= 1000.
-- Events older than their key's newest pane (--unordered) are dropped and
-- counted in derive.stats().late.
--
-- lines: l = {key, time, last, text, partial, cut}: the bytes of a stream
-- up to a newline, time that of the first byte, last that of the newline.
-- byte is a field or function giving an integer (its low 8 bits are the
-- byte) or a string (several bytes), nil to skip the event; a CR before the
-- newline is dropped. A line longer than max bytes (default 4096) is cut
-- there (cut = true) and the rest starts a new one. The line still open
-- at the end (no newline came) is given then, partial = true, as is the
-- one open when h:flush([KEY]) is called (the stream changed hands: a
-- firmware's console taken over by the kernel's).

local key_less = require("ltap.report").key_less

local M = {}
local dropped, late = 0, 0

-- a field as the event shows it: "tid", "fd", or "args.pid" for a format
-- field named like a common one (e.pid is the process, e.args.pid the field)
local function field_fn(name)
  local arg = name:match("^args%.(.+)$")
  if arg then return function(e) return e.args[arg] end end
  return function(e) return e[name] end
end

local function key_fn(key)
  if type(key) == "function" then return key end
  if key == nil or key == "tid" then return function(e) return e.tid end end
  return field_fn(key)
end

local function duration_ns(v, what)
  if v == nil then return nil end
  local ns = ltap.parse_duration(v)
  if not ns then error("derive: bad duration '" .. tostring(v) .. "' for " .. what, 3) end
  return ns
end

local pairs_options = {start = "string", stop = "string", fn = "function", key = "string|function",
  keep = "table", max_pending = "integer", start_filter = "string", stop_filter = "string"}
local runs_options = {event = "string", fn = "function", key = "string|function", gap = "string|number",
  filter = "string"}
local windows_options = {event = "string|table", size = "string|number", slide = "string|number",
  fn = "function", key = "string|function", value = "string|function", filter = "string"}

function M.pairs(o)
  ltap.check_options(o, pairs_options, "derive.pairs")
  assert(o.start and o.stop and o.fn, "derive.pairs needs start, stop and fn")
  local key, keep, max = key_fn(o.key), o.keep or {}, o.max_pending or 100000
  local kept = {}
  for i, f in ipairs(keep) do kept[i] = field_fn(f) end
  local open, n = {}, 0
  probe(o.start, o.start_filter, function(e)
    local k = key(e)
    local s = open[k]
    if not s then
      if n >= max then
        local drop = n // 2
        for kk in pairs(open) do
          if drop == 0 then break end
          open[kk] = nil; n = n - 1; drop = drop - 1; dropped = dropped + 1
        end
      end
      s = {}
      open[k] = s
      n = n + 1
    end
    s.time = e.time
    for i, f in ipairs(keep) do s[f] = kept[i](e) end
  end)
  probe(o.stop, o.stop_filter, function(e)
    local k = key(e)
    local s = open[k]
    if s then
      open[k] = nil
      n = n - 1
      o.fn(e.time - s.time, s, e)
    end
  end)
end

function M.runs(o)
  ltap.check_options(o, runs_options, "derive.runs")
  assert(o.event and o.fn, "derive.runs needs event and fn")
  local key, gap = key_fn(o.key), duration_ns(o.gap or "1ms", "gap")
  local cur = {}
  local function close(k)
    local r = cur[k]
    if r then cur[k] = nil; o.fn(r) end
  end
  probe(o.event, o.filter, function(e)
    local k = key(e)
    local r = cur[k]
    if r and e.time - r.last > gap then close(k); r = nil end
    if not r then
      cur[k] = {key = k, first = e.time, last = e.time, count = 1}
    else
      r.last = e.time
      r.count = r.count + 1
    end
  end)
  -- the runs still open at the end are runs too
  finish(function()
    local keys = {}
    for k in pairs(cur) do keys[#keys + 1] = k end
    table.sort(keys, key_less)
    for _, k in ipairs(keys) do close(k) end
  end)
end


-- r = size / slide: the windows an event is in, the panes of slide a window has
local function window_ratio(o, size, slide)
  if size <= 0 or slide <= 0 then
    error(string.format("derive: windows size %s and slide %s must be positive",
      tostring(o.size), tostring(o.slide or o.size)), 3)
  end
  if size % slide ~= 0 then
    error(string.format("derive: windows size %s is not a whole multiple of slide %s",
      tostring(o.size), tostring(o.slide)), 3)
  end
  local r = size // slide
  if r > 1000 then
    error(string.format("derive: windows size %s / slide %s = %d windows per event (at most 1000)",
      tostring(o.size), tostring(o.slide), r), 3)
  end
  return r
end

function M.windows(o)
  ltap.check_options(o, windows_options, "derive.windows")
  if not (o.event and o.size and o.fn) then error("derive: windows needs event, size and fn", 2) end
  local size = duration_ns(o.size, "size")
  local slide = duration_ns(o.slide, "slide") or size
  local r = window_ratio(o, size, slide)
  local fn, key = o.fn, o.key ~= nil and key_fn(o.key)
  local value = o.value
  if value ~= nil and type(value) ~= "function" then
    value = field_fn(value)
  end
  -- Time is cut into panes [base + p*slide, base + (p+1)*slide); the window
  -- ending at pane index e (stop = base + e*slide) is panes e-r .. e-1.
  -- open[k] is a key's panes, oldest first (K[K.h .. K.n]); ends[e] lists the keys
  -- with a nonempty window ending at e, each once; panes are dropped once no
  -- open window needs them. Everything ending at or before `closed` is done.
  local GLOBAL = {}                                   -- the key of the one window when key is nil
  local base, closed = nil, math.mininteger
  local lo, hi = math.maxinteger, math.mininteger   -- the ends listed in ends[]
  local due = math.mininteger                         -- the first event sets base
  local open, ends = {}, {}

  local function emit(e)
    local list = ends[e]
    if not list then return end
    ends[e] = nil
    if #list > 1 then table.sort(list, function(a, b) return key_less(a.key, b.key) end) end
    local stop = base + e * slide
    for _, K in ipairs(list) do
      local k = K.key
      if k == GLOBAL then k = nil end
      local w
      if r == 1 then
        w = K[K.h]                -- the window is its one pane: hand it over
        K[K.h], K.h = nil, K.h + 1
        w.p = nil
      else
        w = {count = 0}
        for i = K.h, K.n do
          local P = K[i]
          if P.p >= e then break end
          if P.p >= e - r then
            w.count = w.count + P.count
            if P.sum then
              if w.sum then
                w.sum = w.sum + P.sum
                if P.min < w.min then w.min = P.min end
                if P.max > w.max then w.max = P.max end
              else
                w.sum, w.min, w.max = P.sum, P.min, P.max
              end
            end
          end
        end
        while K.h <= K.n and K[K.h].p <= e - r do K[K.h], K.h = nil, K.h + 1 end
      end
      if K.h > K.n then open[K.key] = nil end
      w.key, w.start, w.stop = k, stop - size, stop
      fn(w)
    end
  end

  -- close every window ending at or before t
  local function close(t)
    if not base then base = ltap.start_time() end
    local E = (t - base) // slide
    if E <= closed then return end
    closed = E
    for e = lo, math.min(E, hi) do emit(e) end
    if hi > E then lo = math.max(lo, E + 1) else lo, hi = math.maxinteger, math.mininteger end
    due = lo ~= math.maxinteger and base + lo * slide or math.huge
  end

  -- an event in a pane the key has no record of yet
  local function new_pane(K, k, p, v)
    local first = p + 1
    if K then
      local last = K[K.n].p
      if p < last then late = late + 1; return end    -- out of order (--unordered)
      if last + r + 1 > first then first = last + r + 1 end
    end
    if first <= closed then first = closed + 1 end
    if first > p + r then late = late + 1; return end -- its windows are all closed
    if not K then
      K = {key = k, h = 1, n = 0}
      open[k] = K
    end
    K.n = K.n + 1
    K[K.n] = {p = p, count = 1, sum = v, min = v, max = v}
    for e = first, p + r do
      local list = ends[e]
      if not list then ends[e] = {K} else list[#list + 1] = K end
    end
    if first < lo then lo = first; due = base + lo * slide end
    if p + r > hi then hi = p + r end
  end

  local function on_event(e)
    local t = e.time
    if t >= due then close(t) end
    local k = GLOBAL
    if key then
      k = key(e)
      if k == nil then return end
    end
    local v = value and value(e)
    local p = (t - base) // slide
    local K = open[k]
    local P = K and K[K.n]
    if P and P.p == p then
      P.count = P.count + 1
      if v ~= nil then
        if P.sum then
          P.sum = P.sum + v
          if v < P.min then P.min = v end
          if v > P.max then P.max = v end
        else
          P.sum, P.min, P.max = v, v, v
        end
      end
    else
      new_pane(K, k, p, v)
    end
  end

  for _, ev in ipairs(type(o.event) == "table" and o.event or {o.event}) do
    probe(ev, o.filter, on_event)
  end
  -- an idle key's windows close on time too
  every(slide .. "ns", function() close(ltap.now()) end)
  -- the windows still open at the end, by stop then key
  finish(function()
    for e = lo, hi do emit(e) end
    lo, hi = math.maxinteger, math.mininteger
  end)
end

-- lines: events that carry bytes of a stream (a port written a byte at a
-- time: a firmware's debug port, a serial console) -> one call per line
local lines_options = {event = "string|table", byte = "string|function", fn = "function",
  key = "string|function", filter = "string", max = "integer"}

function M.lines(o)
  ltap.check_options(o, lines_options, "derive.lines")
  if not (o.event and o.byte and o.fn) then error("derive.lines needs event, byte and fn", 2) end
  local max = o.max or 4096
  if max < 1 then error("derive.lines: max must be at least 1", 2) end
  local key = o.key and key_fn(o.key) or function() return true end
  local byte = type(o.byte) == "function" and o.byte or field_fn(o.byte)
  local open = {} -- key -> {time, last, n, bytes...}: the line being made
  local char = string.char

  local function emit(k, partial, cut)
    local l = open[k]
    if not l then return end
    open[k] = nil
    local n = l.n
    if not partial and not cut and n > 0 and l[n] == "\r" then n = n - 1 end -- CRLF
    o.fn({key = k, time = l.time, last = l.last, text = table.concat(l, "", 1, n), partial = partial, cut = cut})
  end

  local function add(k, t, s)
    local l = open[k]
    if not l then
      l = {time = t, last = t, n = 0}
      open[k] = l
    end
    l.last = t
    if s == "\n" then return emit(k, false, false) end
    l.n = l.n + 1
    l[l.n] = s
    if l.n >= max then emit(k, false, true) end
  end

  local function on_event(e)
    local b = byte(e)
    if b == nil then return end
    local k, t = key(e), e.time
    if k == nil then return end
    if type(b) == "number" then
      add(k, t, char(b & 0xff))
    else
      for i = 1, #b do add(k, t, b:sub(i, i)) end
    end
  end
  local events = type(o.event) == "table" and o.event or {o.event}
  for _, ev in ipairs(events) do probe(ev, o.filter, on_event) end

  -- a last line without a newline is a line too, marked partial
  local function flush(k)
    if k ~= nil then return emit(k, true, false) end
    local pending = {}
    for kk, l in pairs(open) do pending[#pending + 1] = {kk, l.time} end
    table.sort(pending, function(a, b) if a[2] ~= b[2] then return a[2] < b[2] end return key_less(a[1], b[1]) end)
    for _, p in ipairs(pending) do emit(p[1], true, false) end
  end
  finish(function() flush() end)
  return {flush = function(_, k) flush(k) end}
end

function M.stats()
  return {dropped = dropped, late = late}
end

return M

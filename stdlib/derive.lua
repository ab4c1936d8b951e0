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
--
-- key is a field name or a function(e) -> key. keep lists start-event fields
-- to hand to fn (start.time is always there). Starts never matched are
-- bounded: more than max_pending (default 100000) open starts drops the
-- oldest half, counted in derive.stats().dropped.

local M = {}
local dropped = 0

local function key_fn(key)
  if type(key) == "function" then return key end
  if key == nil or key == "tid" then return function(e) return e.tid end end
  return function(e) return e[key] end
end

local function duration_ns(v, what)
  if v == nil then return nil end
  if type(v) == "number" then return math.floor(v * 1e9) end
  local n, unit = tostring(v):match("^([%d.]+)(%a*)$")
  local mult = ({ns = 1, us = 1e3, ms = 1e6, s = 1e9, [""] = 1e9})[unit]
  if not n or not mult then error("derive: bad duration '" .. tostring(v) .. "' for " .. what, 3) end
  return math.floor(tonumber(n) * mult)
end

function M.pairs(o)
  assert(o.start and o.stop and o.fn, "derive.pairs needs start, stop and fn")
  local key, keep, max = key_fn(o.key), o.keep or {}, o.max_pending or 100000
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
    for _, f in ipairs(keep) do s[f] = e[f] end
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
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do close(k) end
  end)
end

function M.stats()
  return {dropped = dropped}
end

return M

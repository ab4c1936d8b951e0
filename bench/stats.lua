-- bench/stats.lua: the per-add cost of the stats aggregate, against the same
-- figures kept in Lua tables. Runs no probes: `ltap bench/stats.lua [N]`.
local N = math.tointeger(tonumber(arg[1] or "5000000"))
local keys = {}
for i = 1, 64 do keys[i] = "comm" .. i end

local function timed(name, fn)
  collectgarbage()
  local t0 = os.clock()
  fn()
  local ns = (os.clock() - t0) * 1e9 / N
  printf("%-44s %7.1f ns/add\n", name, ns)
  return ns
end

local function lua_stats_add(t, k, v)
  local s = t[k]
  if not s then s = {count = 0, sum = 0, min = v, max = v, hist = {}}; t[k] = s end
  s.count = s.count + 1
  s.sum = s.sum + v
  if v < s.min then s.min = v end
  if v > s.max then s.max = v end
end

local function lua_hist_add(t, k, v)
  lua_stats_add(t, k, v)
  local b = v <= 0 and 0 or math.floor(math.log(v, 2)) + 2
  local h = t[k].hist
  h[b] = (h[b] or 0) + 1
end

begin(function()
  printf("N = %d adds over %d keys\n", N, #keys)
  timed("plain table count t[k] = (t[k] or 0) + 1", function()
    local t = {}
    for i = 1, N do local k = keys[i & 63 | 1] t[k] = (t[k] or 0) + 1 end
  end)
  local lua_s = timed("Lua tables: count/sum/min/max", function()
    local t = {}
    for i = 1, N do lua_stats_add(t, keys[i & 63 | 1], i) end
  end)
  local c_s = timed("C stats():add(k, v)", function()
    local s = stats()
    for i = 1, N do s:add(keys[i & 63 | 1], i) end
  end)
  local lua_h = timed("Lua tables: + log2 histogram", function()
    local t = {}
    for i = 1, N do lua_hist_add(t, keys[i & 63 | 1], i) end
  end)
  local c_h = timed("C stats{hist=\"log2\"}:add(k, v)", function()
    local s = stats{hist = "log2"}
    for i = 1, N do s:add(keys[i & 63 | 1], i) end
  end)
  local t_inc = timed("plain table count, bursts of 64 of one key", function()
    local t = {}
    for i = 1, N do local k = keys[(i >> 6) & 63 | 1] t[k] = (t[k] or 0) + 1 end
  end)
  local c_inc = timed("C stats():inc(k), bursts of 64 of one key", function()
    local s = stats()
    for i = 1, N do s:inc(keys[(i >> 6) & 63 | 1]) end
  end)
  timed("C stats():inc(k)", function()
    local s = stats()
    for i = 1, N do s:inc(keys[i & 63 | 1]) end
  end)
  timed("C stats():add(k, v), bursts of 64 of one key", function()
    local s = stats()
    for i = 1, N do s:add(keys[(i >> 6) & 63 | 1], i) end
  end)
  timed("C stats():add(k1, k2, v) (tuple key)", function()
    local s = stats()
    for i = 1, N do s:add(keys[i & 63 | 1], i & 7, i) end
  end)
  printf("ratio Lua/C: figures %.1fx, with histogram %.1fx; count in bursts C/Lua table %.2fx\n", lua_s / c_s, lua_h / c_h,
    c_inc / t_inc)
  exit(0)
end)

-- bench/bigagg.lua: an aggregate of many keys, as bench/bigagg.sh runs it
-- beside bench/bigagg.py (the same keys in a Python dict). No probes, no
-- kernel: `ltap bench/bigagg.lua MODE KEYS PARTS [KIND]`.
--
--   report  builds the aggregate (key i counted reps(i) times, 1 to 8, in
--           8 rounds over the keys), then times sorted(s, 10) and report(s)
--           (to standard output: give it /dev/null) and reads the memory
--   add     the cost of one add with the keys made beforehand: the first
--           add of each key, then 4 passes over them in a scattered order
--
-- KIND: stats (stats():inc, the default) or table (a Lua table counted as
-- t[k] = (t[k] or 0) + 1; with two parts t[comm][pid]). Key i is "p"..h(i)
-- with one part, ("c"..h(i) % 997, h(i)) with two, h(i) = i * 2654435761
-- mod 2^32. Results go to standard error as one line of name=value.
local mode, K, parts, kind = arg[1], math.tointeger(tonumber(arg[2])), math.tointeger(tonumber(arg[3] or "1")), arg[4] or "stats"
if (mode ~= "report" and mode ~= "add") or not K or (parts ~= 1 and parts ~= 2) or (kind ~= "stats" and kind ~= "table") then
  io.stderr:write("usage: ltap bench/bigagg.lua report|add KEYS 1|2 [stats|table]\n")
  os.exit(2)
end

local function h(i) return i * 2654435761 % 4294967296 end
local function reps(i) return (h(i) >> 16) % 8 + 1 end

-- VmRSS, VmHWM in KB; "5" into clear_refs starts VmHWM again from VmRSS
local function mem()
  local f = io.open("/proc/self/status")
  local t = f:read("a")
  f:close()
  return tonumber(t:match("VmRSS:%s*(%d+)")), tonumber(t:match("VmHWM:%s*(%d+)"))
end
local function reset_peak()
  local f = io.open("/proc/self/clear_refs", "w")
  f:write("5")
  f:close()
end

local function new_agg()
  if kind == "stats" then return stats() end
  return {}
end

local inc
if kind == "stats" then
  inc = parts == 1 and function(s, k) s:inc(k) end or function(s, c, p) s:inc(c, p) end
else
  inc = parts == 1 and function(t, k) t[k] = (t[k] or 0) + 1 end or function(t, c, p)
    local m = t[c]
    if not m then m = {} t[c] = m end
    m[p] = (m[p] or 0) + 1
  end
end

local results = {}
local function result(name, v) results[#results + 1] = name .. "=" .. v end

local function report_mode()
  collectgarbage()
  local rss0 = mem()
  local s = new_agg()
  local t0 = os.clock()
  for r = 1, 8 do
    for i = 0, K - 1 do
      if reps(i) >= r then
        local x = h(i)
        if parts == 1 then inc(s, "p" .. x) else inc(s, "c" .. x % 997, x) end
      end
    end
  end
  result("build_s", string.format("%.3f", os.clock() - t0))
  collectgarbage()
  local rss1 = mem()
  result("rss_base_kb", rss0)
  result("rss_built_kb", rss1)
  if kind == "stats" then result("agg_bytes", s:info().bytes or "-") end

  reset_peak()
  t0 = os.clock()
  local n = 0
  for _ in sorted(s, 10) do n = n + 1 end
  result("top10_s", string.format("%.4f", os.clock() - t0))
  result("top10_peak_kb", select(2, mem()))
  assert(n == 10)

  reset_peak()
  t0 = os.clock()
  report(s)
  io.stdout:flush()
  result("report_s", string.format("%.3f", os.clock() - t0))
  result("report_peak_kb", select(2, mem()))
end

local function add_mode()
  local k1, k2 = {}, {}
  for i = 0, K - 1 do
    local x = h(i)
    if parts == 1 then k1[i] = "p" .. x else k1[i], k2[i] = "c" .. x % 997, x end
  end
  collectgarbage()
  collectgarbage("stop") -- the keys are made: no collection to time
  local s = new_agg()
  -- the loops written out, so that each times the add itself
  local first, again
  if kind == "stats" and parts == 1 then
    first = function() for i = 0, K - 1 do s:inc(k1[i]) end end
    again = function() for i = 0, K - 1 do s:inc(k1[i * 7919 % K]) end end
  elseif kind == "stats" then
    first = function() for i = 0, K - 1 do s:inc(k1[i], k2[i]) end end
    again = function() for i = 0, K - 1 do local j = i * 7919 % K s:inc(k1[j], k2[j]) end end
  elseif parts == 1 then
    first = function() for i = 0, K - 1 do local k = k1[i] s[k] = (s[k] or 0) + 1 end end
    again = function() for i = 0, K - 1 do local k = k1[i * 7919 % K] s[k] = (s[k] or 0) + 1 end end
  else
    local function add(c, p)
      local m = s[c]
      if not m then m = {} s[c] = m end
      m[p] = (m[p] or 0) + 1
    end
    first = function() for i = 0, K - 1 do add(k1[i], k2[i]) end end
    again = function() for i = 0, K - 1 do local j = i * 7919 % K add(k1[j], k2[j]) end end
  end
  local t0 = os.clock()
  first()
  result("insert_ns", string.format("%.1f", (os.clock() - t0) * 1e9 / K))
  t0 = os.clock()
  for _ = 1, 4 do again() end
  result("update_ns", string.format("%.1f", (os.clock() - t0) * 1e9 / (4 * K)))
  collectgarbage("restart")
end

begin(function()
  if mode == "report" then report_mode() else add_mode() end
  io.stderr:write("RESULT " .. table.concat(results, " ") .. "\n")
  exit(0)
end)

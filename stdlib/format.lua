-- format.lua: number formatting for reports, the global `fmt`.
--   fmt.thousands(1234567)  -> "1,234,567"
--   fmt.bytes(1536)         -> "1.5 KiB"
--   fmt.duration(1500000)   -> "1.50 ms"     (nanoseconds in)
--   fmt.si(1500)            -> "1.5K"        (bpftrace's bucket labels: powers of 1024)

local M = {}

function M.thousands(n)
  if math.type(n) == "float" then
    local int, frac = string.format("%.2f", n):match("^(-?%d+)(%.%d+)$")
    if not int then return tostring(n) end
    return M.thousands(math.tointeger(tonumber(int))) .. frac
  end
  local s = tostring(n)
  local sign, digits = s:match("^(-?)(%d+)$")
  if not digits then return s end
  local out = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return sign .. out:gsub("^,", "")
end

local byte_units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

function M.bytes(n)
  local v, i = math.abs(n), 1
  while v >= 1024 and i < #byte_units do v, i = v / 1024, i + 1 end
  if n < 0 then v = -v end
  if i == 1 then return string.format("%d B", math.tointeger(n) or n) end
  return (string.format("%.1f", v):gsub("%.0$", "")) .. " " .. byte_units[i]
end

-- ns in; three significant figures, the unit chosen to keep the number >= 1
function M.duration(ns)
  local a = math.abs(ns)
  local function fig(v, unit)
    local f = v >= 100 and "%.0f" or v >= 10 and "%.1f" or "%.2f"
    return string.format(f, v) .. " " .. unit
  end
  if a < 1000 then return string.format("%d ns", math.tointeger(ns) or math.floor(ns + 0.5)) end
  if a < 1e6 then return fig(ns / 1e3, "us") end
  if a < 1e9 then return fig(ns / 1e6, "ms") end
  return fig(ns / 1e9, "s")
end

local si_units = {"", "K", "M", "G", "T", "P", "E"}

-- exact powers of 1024 get a suffix (1K, 4M); anything else stays a number
function M.si(n)
  if n == 0 or math.type(n) ~= "integer" then return tostring(n) end
  local v, i = n, 1
  while v % 1024 == 0 and i < #si_units do v, i = v // 1024, i + 1 end
  return tostring(v) .. si_units[i]
end

return M

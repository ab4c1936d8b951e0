-- prelude.lua: globals every script gets: printf, sorted, report, fmt.

-- printf(FMT, ...): string.format to standard output.
function printf(fmt, ...)
  io.stdout:write(string.format(fmt, ...))
end

local function kind_rank(v)
  local t = type(v)
  return t == "number" and 1 or t == "string" and 2 or t == "boolean" and 3 or 4
end

-- Orders any two keys: numbers before strings, then by value, so mixed
-- tables sort without errors and always the same way.
local function key_less(a, b)
  local ra, rb = kind_rank(a), kind_rank(b)
  if ra ~= rb then return ra < rb end
  if ra <= 2 then return a < b end
  return tostring(a) < tostring(b)
end

local orders = {
  desc = function(a, b) if a.v ~= b.v then return a.v > b.v end return key_less(a.k, b.k) end,
  asc = function(a, b) if a.v ~= b.v then return a.v < b.v end return key_less(a.k, b.k) end,
  key = function(a, b) return key_less(a.k, b.k) end,
  ["key-desc"] = function(a, b) return key_less(b.k, a.k) end,
}
orders["value"] = orders.desc
orders["key-asc"] = orders.key

-- sorted(T, [HOW], [N]): iterates key, value of T in order, at most N pairs.
-- HOW: "desc" (by value, largest first; the default), "asc", "key" (by key
-- ascending), "key-desc". Ties are broken by key.
function sorted(t, how, n)
  if type(how) == "number" then how, n = nil, how end
  local cmp = orders[how or "desc"]
  if not cmp then
    error(string.format("sorted: bad order '%s' (desc, asc, key, key-desc)", tostring(how)), 2)
  end
  local items = {}
  for k, v in pairs(t) do items[#items + 1] = {k = k, v = v} end
  table.sort(items, cmp)
  local i, last = 0, n and math.min(n, #items) or #items
  return function()
    i = i + 1
    if i <= last then return items[i].k, items[i].v end
  end
end

fmt = require("ltap.format")
require("ltap.report")

return true

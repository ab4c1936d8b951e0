-- prelude.lua: globals every script gets: printf, sorted, report, fmt.

-- printf(FMT, ...): string.format to standard output.
function printf(fmt, ...)
  io.stdout:write(string.format(fmt, ...))
end

-- Orders any two keys (report.lua's, set below once it is loaded): mixed
-- tables sort without errors and always the same way.
local key_less

local orders = {
  desc = function(a, b) if a.v ~= b.v then return a.v > b.v end return key_less(a.k, b.k) end,
  asc = function(a, b) if a.v ~= b.v then return a.v < b.v end return key_less(a.k, b.k) end,
  key = function(a, b) return key_less(a.k, b.k) end,
  ["key-desc"] = function(a, b) return key_less(b.k, a.k) end,
}
orders["value"] = orders.desc
orders["key-asc"] = orders.key

local canonical = {desc = "desc", value = "desc", asc = "asc", key = "key", ["key-asc"] = "key", ["key-desc"] = "key-desc"}
local sort_table = ltap.sort_table

-- sorted(T, [HOW], [N]): iterates key, value of T in order, at most N pairs.
-- HOW: "desc" (by value, largest first; the default), "asc", "key" (by key
-- ascending), "key-desc". Ties are broken by key. Tables of number, string
-- and boolean keys (and number or string values) are ordered in C
-- (bindings/sorted.c: the top N kept in a bounded heap); others here.
function sorted(t, how, n)
  if type(how) == "number" then how, n = nil, how end
  local cmp = orders[how or "desc"]
  if not cmp then
    error(string.format("sorted: bad order '%s' (desc, asc, key, key-desc)", tostring(how)), 2)
  end
  local it = type(t) == "table" and getmetatable(t) == nil and sort_table(t, canonical[how or "desc"], n)
  if it then return it end
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
key_less = require("ltap.report").key_less

return true

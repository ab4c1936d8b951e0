-- sorted() and s:sorted() against the implementations they replaced (a Lua
-- table per key and table.sort with a Lua comparator, copied below as they
-- were at main 877a405): the same pairs in the same order, ties included,
-- for every order and many N, on tables and aggregates of mixed keys
-- (integers, floats, strings with bytes above 127 and zeros, booleans).
-- Any difference is printed with its case and the run fails on it.

-------------------------------------------------- the old implementations

local function kind_rank(v)
  local t = type(v)
  return t == "number" and 1 or t == "string" and 2 or t == "boolean" and 3 or t == "table" and 4 or 5
end

local function key_less(a, b)
  local ra, rb = kind_rank(a), kind_rank(b)
  if ra ~= rb then return ra < rb end
  if ra <= 2 then return a < b end
  if ra == 4 then
    for i = 1, math.max(#a, #b) do
      if a[i] == nil then return true end
      if b[i] == nil then return false end
      if a[i] ~= b[i] then return key_less(a[i], b[i]) end
    end
    return false
  end
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

local function old_sorted(t, how, n)
  if type(how) == "number" then how, n = nil, how end
  local cmp = orders[how or "desc"]
  local items = {}
  for k, v in pairs(t) do items[#items + 1] = {k = k, v = v} end
  table.sort(items, cmp)
  local i, last = 0, n and math.min(n, #items) or #items
  return function()
    i = i + 1
    if i <= last then return items[i].k, items[i].v end
  end
end

local function old_stats_sorted(s, by, order, n)
  if type(by) == "number" then by, order, n = nil, nil, by end
  if type(order) == "number" then order, n = nil, order end
  by, order = by or "count", order or "desc"
  local ids, vals = s:rows(by)
  local items = {}
  for i = 1, #ids do
    local key = s:row(ids[i])
    items[i] = {id = ids[i], v = vals[i], k = key}
  end
  local desc = order == "desc"
  table.sort(items, function(a, b)
    if a.v ~= b.v then if desc then return a.v > b.v end return a.v < b.v end
    return key_less(a.k, b.k)
  end)
  local i, last = 0, n and math.min(n, #items) or #items
  return function()
    i = i + 1
    if i <= last then return s:row(items[i].id) end
  end
end

------------------------------------------------------------ comparing

local figure_names = {"count", "sum", "min", "max", "avg", "var", "stddev"}

-- a value as text that tells 1 from 1.0 and "1" from 1
local function repr(v)
  local t = type(v)
  if t == "number" then return math.type(v) .. ":" .. string.format(math.type(v) == "float" and "%.17g" or "%d", v) end
  if t == "string" then return string.format("%q", v) end
  if t == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = repr(v[i]) end
    for _, k in ipairs(figure_names) do
      if v[k] ~= nil then parts[#parts + 1] = k .. "=" .. repr(v[k]) end
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return tostring(v)
end

local function listing(iter, state, init)
  local out = {}
  for k, v in iter, state, init do out[#out + 1] = repr(k) .. " " .. repr(v) end
  return out
end

local cases, pairs_compared, failures = 0, 0, 0
local c_tables, tables = 0, 0 -- tables ordered in C (ltap.sort_table), of all

local function compare(what, old, new)
  cases = cases + 1
  pairs_compared = pairs_compared + #old
  local same = #old == #new
  for i = 1, math.max(#old, #new) do
    if old[i] ~= new[i] then
      same = false
      if failures < 20 then print(string.format("FAIL %s: row %d: old %s, new %s", what, i, old[i], new[i])) end
      break
    end
  end
  if not same then
    failures = failures + 1
    if failures <= 20 and #old ~= #new then print(string.format("FAIL %s: old %d rows, new %d", what, #old, #new)) end
  end
end

------------------------------------------------------------ the data

math.randomseed(20261205)

local strings = {"", "a", "A", "b", "ab", "a\0", "a\0b", "a\0a", "\0", "\255", "\128x", "z", "10", "9", "-1",
  "true", "comm-" .. string.rep("x", 50), "comm-" .. string.rep("x", 49) .. "y", " ", "sh", "bash", "kworker/0:1"}
local numbers = {0, 1, -1, 2, 3, 10, 100, -100, 0.5, -0.5, 1.5, 2.5, 1e300, -1e300, 1 / 0, -1 / 0,
  math.maxinteger, math.mininteger, 2 ^ 53, 2 ^ 53 + 2, -(2 ^ 63), 2 ^ 63, 9007199254740993, 0.1, 1e-300}

local function any_key()
  local r = math.random(10)
  if r <= 4 then return numbers[math.random(#numbers)] end
  if r <= 9 then return strings[math.random(#strings)] end
  return math.random(2) == 1
end

-- values with many ties, integers and floats of equal value among them
local values = {1, 2, 3, 2.0, 3.0, 0, -1, 7, 7, 7, 1.5, 1e18, 2 ^ 63, math.maxinteger, -0.0}
local function any_value() return values[math.random(#values)] end

local hows = {false, "desc", "asc", "key", "key-desc", "value", "key-asc"}
local function ns_for(size) return {false, 0, 1, 2, 3, 10, size - 1, size, size + 5} end

local function compare_table(name, t, size, few)
  tables = tables + 1
  for _, how in ipairs(few and {false, "asc", "key"} or hows) do
    for _, n in ipairs(few and {false, 10} or ns_for(size)) do
      local what = string.format("%s how=%s n=%s", name, tostring(how), tostring(n))
      local args = {}
      if how then args[#args + 1] = how end
      if n then args[#args + 1] = n end
      compare(what, listing(old_sorted(t, table.unpack(args))), listing(sorted(t, table.unpack(args))))
    end
  end
  -- sorted(t, N): the count as the second argument
  compare(name .. " sorted(t, 4)", listing(old_sorted(t, 4)), listing(sorted(t, 4)))
  if ltap.sort_table(t, "desc") then c_tables = c_tables + 1 end
end


local function compare_stats(name, s, size, few)
  for _, by in ipairs(few and {"count", "avg"} or figure_names) do
    for _, order in ipairs{"desc", "asc"} do
      for _, n in ipairs(few and {false, 10} or ns_for(size)) do
        local what = string.format("%s by=%s order=%s n=%s", name, by, order, tostring(n))
        compare(what, listing(old_stats_sorted(s, by, order, n or nil)), listing(s:sorted(by, order, n or nil)))
      end
    end
  end
  compare(name .. " sorted(s)", listing(old_stats_sorted(s)), listing(sorted(s)))
  compare(name .. " sorted(s, 5)", listing(old_stats_sorted(s, 5)), listing(sorted(s, 5)))
  compare(name .. " s:sorted(\"sum\", 3)", listing(old_stats_sorted(s, "sum", 3)), listing(s:sorted("sum", 3)))
end

begin(function()
  -- tables: a fixed one with every kind of key, then random ones
  local fixed, size = {}, 0
  for _, k in ipairs(strings) do fixed[k] = any_value() size = size + 1 end
  for _, k in ipairs(numbers) do if fixed[k] == nil then fixed[k] = any_value() size = size + 1 end end
  fixed[true], fixed[false] = 7, 7.0
  compare_table("fixed", fixed, size + 2)
  for round = 1, 30 do
    local t, size = {}, 0
    for _ = 1, math.random(0, round * 5) do
      local k = any_key()
      if t[k] == nil then size = size + 1 end
      t[k] = any_value()
    end
    compare_table("table" .. round, t, size)
  end
  -- keys that are tables (ordered as tuples), a NaN value: left to the Lua
  -- version
  compare_table("table keys", {[{1, 2}] = 1, [{1}] = 1, [{0, "x"}] = 2, x = 2}, 4)
  compare_table("NaN value", {a = 0 / 0, b = 1}, 2, true)
  -- values that are all strings
  compare_table("string values", {a = "x", b = "y", c = "x", [1] = "", [2] = "\0", [true] = "x"}, 6)
  -- one big table: a partial selection over many keys
  local big = {}
  for i = 1, 8000 do big[(i * 7919) % 30011 .. "k"] = (i * 31) % 97 end
  for i = 1, 2000 do big[i * 3] = (i * 17) % 101 + 0.5 * (i % 2) end
  compare_table("big", big, 10000, true)

  -- aggregates: one, two and three key parts of mixed kinds; integer and
  -- float values so that count, sum, min and max all tie across keys
  local function agg_value()
    local r = math.random(6)
    return r == 1 and 0.5 or r == 2 and -3 or r == 3 and 4.0 or math.random(0, 4)
  end
  local function agg_key()
    local k = any_key()
    -- a float with an integer value is that integer (as in a Lua table)
    if math.type(k) == "float" and k == math.floor(k) and k >= -2 ^ 63 and k < 2 ^ 63 then k = math.tointeger(k) end
    return k
  end
  for round = 1, 8 do
    for arity = 1, 3 do
      local s, keys = stats(), {}
      for _ = 1, math.random(0, round * 6) do
        local key = {}
        for p = 1, arity do key[p] = agg_key() end
        keys[#keys + 1] = key
      end
      for _ = 1, #keys * 3 do
        local key = keys[math.random(#keys)]
        if math.random(3) == 1 then s:inc(table.unpack(key)) else
          local v = {table.unpack(key)} v[#v + 1] = agg_value() s:add(table.unpack(v))
        end
      end
      compare_stats(string.format("stats%d/%d", round, arity), s, #s)
    end
  end
  -- counts only (s:inc), many keys with equal counts
  local c = stats()
  for i = 1, 20000 do c:inc(strings[i % #strings + 1] .. (i % 300)) end
  for i = 1, 3000 do c:inc(i % 700) end
  compare_stats("counts", c, #c, true)
  local c2 = stats()
  for i = 1, 20000 do c2:inc("comm" .. i % 37, i % 60) end
  compare_stats("counts2", c2, #c2, true)

  print(string.format("%d cases, %d failed; %d of %d tables ordered in C", cases, failures, c_tables, tables))
  print(pairs_compared > 100000 and "more than 100000 pairs compared" or "only " .. pairs_compared .. " pairs compared")
  exit(failures == 0 and 0 or 1)
end)

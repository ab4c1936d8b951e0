-- report()'s table of an aggregate, written by C (s:write), against the Lua
-- layout it replaced (print_grid and cell of stdlib/report.lua at main
-- 877a405, copied below) over the same rows: keys of every kind and float
-- figures whose "%.2f" sits on a rounding edge, every option of the table.
-- Any difference is printed and the run fails on it.

-------------------------------------------------- the old layout

local function cell(v)
  if math.type(v) == "float" then
    if v ~= v then return "nan" end
    return string.format("%.2f", v)
  end
  return tostring(v)
end

local function print_grid(out, rows, nleft)
  local w = {}
  for _, r in ipairs(rows) do
    for c, v in ipairs(r) do w[c] = math.max(w[c] or 0, #v) end
  end
  for _, r in ipairs(rows) do
    local o = {}
    for c, v in ipairs(r) do
      if c <= nleft then
        o[c] = c == #r and v or v .. string.rep(" ", w[c] - #v)
      else
        o[c] = string.rep(" ", w[c] - #v) .. v
      end
    end
    out[#out + 1] = table.concat(o, "  ") .. "\n"
  end
end

local function key_parts(k, arity)
  if arity > 1 then return k end
  if arity == 0 then return {} end
  return {k}
end

local function key_names(opts, arity)
  local names = {}
  for i = 1, arity do
    names[i] = opts.keys and opts.keys[i] or (arity > 1 and "key" .. i or "key")
  end
  return names
end

local default_fields = {"count", "sum", "min", "avg", "max"}

local function old_table(s, opts)
  local info = s:info()
  local fields = opts.fields or default_fields
  local names = key_names(opts, info.arity)
  local head = {}
  for i, n in ipairs(names) do head[i] = n end
  for _, f in ipairs(fields) do head[#head + 1] = f end
  local rows = {head}
  for k, st in s:sorted(opts.by, opts.order, opts.top) do
    local r = {}
    for i, p in ipairs(key_parts(k, info.arity)) do r[i] = tostring(p) end
    for _, f in ipairs(fields) do r[#r + 1] = cell(st[f]) end
    rows[#rows + 1] = r
  end
  local out = {}
  print_grid(out, rows, #names)
  return table.concat(out)
end

local function new_table(s, opts)
  local f = io.tmpfile()
  assert(s:write(f, opts))
  f:seek("set")
  local text = f:read("a")
  f:close()
  return text
end

------------------------------------------------------------ comparing

local cases, failures = 0, 0

local function compare(name, s, opts)
  cases = cases + 1
  local old, new = old_table(s, opts), new_table(s, opts)
  if old ~= new then
    failures = failures + 1
    if failures <= 10 then
      print("FAIL " .. name)
      print("old:\n" .. old:sub(1, 600))
      print("new:\n" .. new:sub(1, 600))
    end
  end
end

local option_sets = {
  {},
  {top = 3},
  {top = 0},
  {by = "sum", order = "asc"},
  {by = "avg", top = 10, keys = {"name"}},
  {fields = {"count", "sum", "min", "max", "avg", "var", "stddev"}},
  {fields = {"stddev", "bogus", "avg"}, keys = {"a", "b", "c"}},
  {fields = {}},
  {by = "max", order = "desc", top = 2.5},
}

math.randomseed(7)

-- values whose averages and sums land on "%.2f"'s edges
local edges = {0.125, 0.375, 0.005, 0.015, 0.025, 1.005, 2.675, -0.001, -0.005, 0.994999, 0.995, 9.995,
  99.995, 999.995, 1e15 + 0.5, 123456789.125, 1e300, -1e300, 1 / 3, 2 / 3, -2 / 3, 1e-9, 5e-3, 4.35, 1.45}

local function any_key()
  local r = math.random(9)
  if r <= 3 then return math.random(-1000, 100000) end
  if r == 4 then return ({0.5, -2.25, 1e300, -1 / 0, 1 / 0, 2 ^ 63, 1e-300, 0.1, 123.456})[math.random(9)] end
  if r <= 8 then return ({"sh", "bash", "", "kworker/0:1", "a\0b", "longer-process-name", "\255x"})[math.random(7)] .. math.random(50) end
  return math.random(2) == 1
end

local function any_value()
  local r = math.random(4)
  if r == 1 then return edges[math.random(#edges)] end
  if r == 2 then return math.random(-5, 5) end
  if r == 3 then return math.random(0, 1 << 40) end
  return math.random() * 1000
end

begin(function()
  for arity = 0, 3 do
    for round = 1, 6 do
      local s, keys = stats(), {}
      for _ = 1, round * 15 do
        local key = {}
        for p = 1, arity do key[p] = any_key() end
        keys[#keys + 1] = key
      end
      for _ = 1, round * 40 do
        local key = {table.unpack(keys[math.random(#keys)])}
        if math.random(3) == 1 then s:inc(table.unpack(key)) else
          key[#key + 1] = any_value()
          s:add(table.unpack(key))
        end
      end
      for i, opts in ipairs(option_sets) do compare(string.format("arity %d round %d options %d", arity, round, i), s, opts) end
    end
  end
  -- counts alone; an empty aggregate; NaN and infinite figures
  local c = stats()
  for i = 1, 500 do c:inc("k" .. i % 37, i % 3 == 0) end
  for i, opts in ipairs(option_sets) do compare("counts " .. i, c, opts) end
  compare("empty", stats(), {})
  local odd = stats()
  odd:add("nan", 0 / 0) odd:add("inf", 1 / 0) odd:add("-inf", -1 / 0) odd:add("big", math.maxinteger) odd:add("big", 1)
  odd:add("neg zero", -0.0) odd:add("half", 0.125) odd:add("half", 0.125)
  for i, opts in ipairs(option_sets) do compare("odd " .. i, odd, opts) end
  print(string.format("%d tables compared, %d differ", cases, failures))
  exit(failures == 0 and 0 or 1)
end)

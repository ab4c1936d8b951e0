-- The stats object (bindings/stats.c): a table whose own fields are its
-- methods bound to its aggregate, the metatable's the same unbound; each
-- method acts on the aggregate given as self, whichever way it is called;
-- no fields can be set, pairs() refuses, and the aggregate goes with it.
local function try(f, ...)
  local ok, err = pcall(f, ...)
  return ok and "ok" or (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

begin(function()
  local a, b = stats(), stats()
  a:inc("x") a:inc("x") a:add("y", 5)
  a.inc(b, "x")                               -- a's method, b as self: counts in b
  getmetatable(a).__index.inc(b, "x")         -- the unbound one
  local inc = a.inc
  inc(a, "z")
  print("a", a:count("x"), a:sum("y"), a:count("z"), #a, "b", b:count("x"), #b)
  print("get", a:get("y").max, b.get(a, "y").count, getmetatable(a).__index.count(a, "x"))
  print("type", type(a), tostring(a))
  print("dot call:", try(function() a.inc("x") end))
  print("not stats:", try(function() a.add({}, "x", 1) end))
  print("unbound on a table:", try(function() getmetatable(a).__index.get({}, "x") end))
  print("set a field:", try(function() a.total = 1 end))
  print("pairs:", try(function() for _ in pairs(a) do end end))
  print("sorted:")
  for k, v in sorted(a) do print("", k, v.count) end
  -- one of many: each key counted in its own aggregate, in bursts and alternating
  local s = {}
  for i = 1, 3 do s[i] = stats() end
  for n = 1, 3000 do s[n % 3 + 1]:inc("k" .. n % 5) end
  for i = 1, 3 do io.write(i, ":") for k, v in sorted(s[i]) do io.write(" ", k, "=", v.count) end print() end
  -- collected with its object: memory back
  collectgarbage() collectgarbage()
  local before = collectgarbage("count")
  do local big = stats() for i = 1, 20000 do big:inc(i) end end
  collectgarbage() collectgarbage()
  print("freed:", collectgarbage("count") - before < 64)
  exit(0)
end)

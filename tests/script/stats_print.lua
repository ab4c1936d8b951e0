-- Printed aggregates, exactly: histograms with negative, zero and edge
-- buckets, linear overflow, tuple keys, empty aggregates, sorting, limits.
begin(function()
  local h = stats{hist = "log2"}
  for _, v in ipairs{-7, -1, 0, 0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1025, 1 << 40} do h:add("edge", v) end
  h:add("one", 5)
  report(h)
  print("--")
  report(h, {hist = false, keys = {"name"}, fields = {"count", "sum", "min", "max", "avg"}})
  print("--")
  h:print_hist("one")
  print("-- absent key:", h:hist("nope"), h:count("nope"), h:get("nope"))

  local l = stats{hist = "linear", min = 0, max = 100, step = 30}
  for _, v in ipairs{-1, 0, 29, 30, 89.5, 90, 99.9, 100, 1e9} do l:add(v) end
  report(l)
  print("--")

  local t = stats()
  t:add("sh", 10, 3) t:add("sh", 10, 5) t:add("sh", 11, 4) t:add("awk", 7, 4) t:add("awk", 7, 8)
  report(t, {keys = {"comm", "pid"}, fields = {"count", "sum", "min", "max", "avg", "var", "stddev"}})
  print("-- by sum ascending, top 2")
  for k, st in t:sorted("sum", "asc", 2) do print(k[1], k[2], st.sum) end
  print("-- by key tie-break (count desc)")
  for k, st in sorted(t) do print(k[1], k[2], st.count) end
  t:clear("sh", 10)
  print("-- after clear(sh, 10):", #t, t:count("sh", 10), t:count("sh", 11))
  t:add("sh", 10, 100)
  print("-- re-added:", #t, t:sum("sh", 10))

  print("-- empty:")
  report(stats())
  report(stats{hist = "log2"})
  report({})
  print("-- keyless:")
  local k = stats()
  k:add(2) k:add(4) k:add(9)
  report(k)
  print("-- plain table, value order then key order:")
  report({Xorg = 9630, firefox = 2143, sh = 2143, [42] = 7}, {keys = {"comm"}, value = "pages"})
  report({b = 1, a = 2}, {order = "key", title = "by key"})
  print("-- floats switch the sums:", (function() local f = stats() f:add("x", 1) f:add("x", 0.5) return f:sum("x"), f:min("x"), f:max("x") end)())

  print("-- limits:")
  local d = stats{max_keys = 2, full = "drop"}
  d:inc("a") d:inc("b") d:inc("c") d:inc("a")
  report(d)
  local e = stats{max_keys = 2}
  e:inc("a") e:inc("b")
  print(pcall(e.inc, e, "c"))
  print(pcall(t.add, t, "sh", 1))
  print(pcall(t.add, t, nil, 1, 2))
  print(pcall(stats, {hist = "linear", min = 0, max = 10}))
  print(pcall(stats, {hist = "cubic"}))

  print("-- fmt:")
  print(fmt.thousands(0), fmt.thousands(999), fmt.thousands(1000), fmt.thousands(-1234567), fmt.thousands(1234.567))
  print(fmt.bytes(0), fmt.bytes(1023), fmt.bytes(1024), fmt.bytes(1536), fmt.bytes(10 * 1024 * 1024), fmt.bytes(-2048))
  print(fmt.duration(0), fmt.duration(999), fmt.duration(1000), fmt.duration(12345), fmt.duration(123456789), fmt.duration(2.5e9))
  exit(0)
end)

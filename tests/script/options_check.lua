-- Every options table is checked by one helper: an unknown option, or a
-- value of the wrong type, is a one-line error naming it, never ignored.
local function try(f)
  local ok, err = pcall(f)
  print(ok and "accepted" or (err:gsub("^.*/", ""))) -- no directory: where the tree is varies
end
local nop = function() end
try(function() probe("kmem:mm_page_alloc", {filtr = "order > 0"}, nop) end)
try(function() probe("kmem:mm_page_alloc", {stack = "yes"}, nop) end)
try(function() probe("kmem:mm_page_alloc", {filter = 3}, nop) end)
try(function() counter("task-clock", {sytem = true}) end)
try(function() counter("task-clock", "system") end)
try(function() stats({hist = "log2", max_key = 10}) end)
try(function() stats({max_keys = 1.5}) end)
try(function() stats({[1] = "log2"}) end)
try(function() ltap.options({pid = 1, commnd = "true"}) end)
try(function() ltap.options({command = 3}) end)
try(function() ltap.options({command = {"true", 3}}) end)
try(function() ltap.options({pid = 4294967297}) end)
try(function() report({a = 1}, {tpo = 3}) end)
try(function() report({a = 1}, {top = "3"}) end)
try(function() report({a = 1}, "top") end)
local derive = require("ltap.derive")
try(function() derive.pairs({start = "a:b", stop = "a:c", fn = nop, keep_fields = {}}) end)
try(function() derive.runs({event = "a:b", fn = nop, gapp = "1ms"}) end)
try(function() derive.windows({event = "a:b", fn = nop, size = "1s", slid = "1ms"}) end)
local fg = require("ltap.flamegraph")
try(function() fg.svg({}, {titel = "x"}) end)
try(function() fg.diff_svg({}, {}, {width = 10.5}) end)
try(function() exit(256) end)
try(function() exit(-1) end)
-- what is known passes
try(function() report({a = 1}, {top = 1, title = "t"}) end)
exit()

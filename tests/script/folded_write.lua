-- ltap.folded.write: a folded table's lines sorted by stack; a stack list's
-- in its own order (ltap profile sorts once for the file and the graph),
-- with its counts as the table's are printed (integers, fractions).
local folded = require("ltap.folded")
begin(function()
  local t = { ["sh;main;b"] = 2, ["sh;main;a"] = 1.5, ["cat;[unknown]"] = 3, ["sh;main"] = 4.0 }
  print("table: " .. folded.write(t, "-") .. " lines")
  local keys, counts = ltap.flame_sort(t)
  print("sorted list: " .. folded.write({ stacks = keys, counts = counts }, "-") .. " lines")
  print("list as given: " .. folded.write({ stacks = { "z;y", "a;b", "z;y" }, counts = { 1, 2, 3 } }, "-") .. " lines")
  exit()
end)

-- ltap.overhead's report: rows by samples, ties by command, shared object
-- and symbol; columns as wide as the widest row, printed or not; the first
-- n rows, or all. The expected output is what the report printed when it
-- sorted every row (before it kept only the rows printed).
local overhead = require("ltap.overhead")
begin(function()
  local acc = overhead.new()
  local f = function(module, sym, kernel) return { module = module, sym = sym, kernel = kernel, addr = 0x1234 } end
  overhead.add_frame(acc, "hot", f("/usr/bin/hot", "hot_spin"), 50)
  overhead.add_frame(acc, "sh", f("/usr/lib/libc.so.6", "memcpy"), 7)
  overhead.add_frame(acc, "sh", f("[kernel.kallsyms]", "clear_page", true), 7)
  overhead.add_frame(acc, "s", f("/usr/lib/libc.so.6", "memcpy"), 7)
  overhead.add_frame(acc, "sh2", f("/usr/lib/libc.so.6", "free"), 7)
  overhead.add_frame(acc, "a-very-long-command", f("/usr/lib/x86_64-linux-gnu/libverylongname.so.1", "f"), 1)
  overhead.add_frame(acc, "cat", nil, 2)
  overhead.add_frame(acc, "cat", f("/usr/bin/cat", nil), 2)
  overhead.add_frame(acc, "cat", f("/usr/bin/cat", "main"), 3)
  overhead.add_frame(acc, "hot", f("/usr/bin/hot", "hot_spin"), 5)
  for _, n in ipairs{1, 3, 6, 100} do
    print("n = " .. n)
    overhead.print(acc, n)
  end
  print("all")
  overhead.print(acc)
  exit(0)
end)

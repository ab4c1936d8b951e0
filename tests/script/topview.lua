-- ltap.topview, the table of ltap top: perf top's decay (7/8 per refresh),
-- -z, shares of all samples whatever the zoom, sort keys and reverse,
-- filters (Lua pattern, plain text when not one), zoom into a command and a
-- shared object and out, the selection following its row, the screen.
begin(function()
  local topview = require("ltap.topview")
  local rows = {
    {"hot", "/usr/bin/hot", "hot_spin", false, 800},
    {"hot", "[kernel.kallsyms]", "clear_page_erms", true, 100},
    {"make", "/usr/lib/x86_64-linux-gnu/libc.so.6", "malloc", false, 60},
    {"make", "[kernel.kallsyms]", "clear_page_erms", true, 40},
    {"cc1", "/usr/lib/gcc/cc1", 0x401136, false, 8},
  }
  local v = topview.new{}
  v:refresh(rows)
  io.write(v:table(10, "first refresh"))
  -- decay: 800 -> 700, 100 -> 87, 60 -> 52, 40 -> 35, 8 -> 7; then one more hot_spin sample
  v:refresh({{"hot", "/usr/bin/hot", "hot_spin", false, 1}})
  io.write(v:table(3, "decayed, 3 rows"))
  v:key("s") io.write(v:table(10, "sort: command"))
  v:key("S") io.write(v:table(10, "command, reversed"))
  v:key("s") v:key("s") io.write(v:table(10, "sort: symbol"))
  v:key("s") io.write(v:table(10, "back to overhead"))
  for _, k in ipairs{"/", "c", "l", "e", "a", "r", "enter"} do v:key(k) end
  io.write(v:table(10, "filter clear"))
  for _, k in ipairs{"/", "backspace", "backspace", "backspace", "backspace", "backspace", "[", "enter"} do v:key(k) end
  io.write(v:table(10, "filter '[' (no Lua pattern: plain text)"))
  v:key("esc") -- no zoom: clears the filter
  v:key("j") v:key("z") io.write(v:table(10, "row 2 zoomed: its command (hot)"))
  v:key("j") v:key("d") io.write(v:table(10, "and its shared object"))
  v:key("esc") io.write(v:table(10, "out once"))
  v:key("backspace") io.write(v:table(10, "out twice"))
  v:key("end") v:key("d") io.write(v:table(10, "last row's object (cc1)"))
  v:key("d") io.write(v:table(10, "d again: out"))
  print(v:key("?"), v.mode, v:key("x"), v.mode, v:key("q"))
  -- -z: only the interval
  local z = topview.new{zero = true, sort = "dso", comm = "make"}
  z:refresh(rows)
  z:refresh({{"make", "[kernel.kallsyms]", "clear_page_erms", true, 3}, {"hot", "/usr/bin/hot", "hot_spin", false, 1}})
  io.write(z:table(10, "-z, --comm make, -s dso"))
  print(pcall(topview.new, {sort = "size"}))
  -- the screen: status, state, header, rows (the selected one in reverse video), key line
  local s = topview.new{}
  s:refresh(rows)
  s:key("down")
  print((s:screen(8, 60, "status"):gsub("\27", "ESC")))
  exit(0)
end)

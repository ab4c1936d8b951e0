# Call chains on a tracepoint (the perf ring), compared with perf script;
# sym(); folded output of a synthetic set of stacks; stack misuse.
N=300
cat > $WORK/s.lua <<'LUA'
local folded = require("ltap.folded")
local n, stacks, same, all = 0, {}, 0, 0
probe("kmem:mm_page_alloc", {stack = true, filter = "order == 0"}, function(e)
  -- e:folded() (C) and the Lua fold of e:stack() agree, for every event
  local t = {}
  folded.add_frames(t, e.comm, e:stack())
  all = all + 1
  if next(t) == e:folded() and e:frame(1).addr == e:stack()[1].addr and e:frame(1000) == nil then
    same = same + 1
  end
  if e.comm ~= "touch_pages" then return end
  local u = e:ustack()
  if not (u[1] and u[1].sym == "main") then return end
  n = n + 1
  local names = {}
  for _, f in ipairs(e:kstack()) do names[#names + 1] = f.sym end
  local k = table.concat(names, ",")
  stacks[k] = (stacks[k] or 0) + 1
  local top = e:kstack()[1]
  local name, off, mod = sym(top.addr)
  if name ~= top.sym or off ~= top.off or mod ~= "[kernel.kallsyms]" then error("sym() disagrees") end
end)
finish(function()
  io.stderr:write(string.format("folded: %d of %d the same\n", same, all))
  printf("main %s\n", (n >= tonumber(arg[1]) and same == all) and "enough" or n)
  for k, v in sorted(stacks, 1) do printf("%d %s\n", v, k) end
end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/touch_pages $N" $WORK/s.lua $N
cat $WORK/err
expect_eq "exit" 0 "$RC"
# N data pages, and the page-table pages on the way (their number varies)
expect_eq "allocations from main, with stacks" "main enough" "$(head -1 $WORK/out)"

# the same event and workload through perf record -g / perf script
if perf version >/dev/null 2>&1; then
  perf record -q -o $WORK/perf.data -e kmem:mm_page_alloc --filter 'order == 0' -g -- $PROGS/touch_pages $N >/dev/null 2>&1
  perf script -i $WORK/perf.data -F comm,ip,sym,dso 2>/dev/null | awk '
    /^ *touch_pages/ { k = ""; m = 0; next }
    /\(\[kernel.kallsyms\]\)/ { k = k (k == "" ? "" : ",") $2; next }
    /^[ \t]+[0-9a-f]+ main / { m = 1; next }
    /^$/ { if (m) c[k]++; k = ""; m = 0 }
    END { for (s in c) print c[s], s }' | sort -rn | head -1 > $WORK/perf_top
  expect_eq "kernel frames as perf script names them" "$(cat $WORK/perf_top)" "$(sed -n 2p $WORK/out)"
else
  echo "skip: perf is not installed: kernel frames not compared with perf script"
fi
expect_grep "the page fault path" "^$N __alloc_frozen_pages_noprof,.*,do_anonymous_page,.*,exc_page_fault,asm_exc_page_fault$" $WORK/out

# folded lines of a synthetic set of stacks (no kernel events needed)
cat > $WORK/f.lua <<'LUA'
local folded = require("ltap.folded")
local t = {}
local s = {{sym = "leaf", kernel = true}, {sym = "mid"}, {module = "/usr/lib/libx.so.1"}, {}}
folded.add_frames(t, "my app", s)
folded.add_frames(t, "my app", s, 2)
folded.add_frames(t, "b", {{sym = "a;b"}})
folded.add_frames(t, "b", {{sym = "x"}, {sym = "main"}}, 4)
begin(function() for _, l in ipairs(folded.lines(t)) do print(l) end exit() end)
LUA
run_ltap $WORK/out $WORK/err $WORK/f.lua
printf 'b;a:b 1\nb;main;x 4\nmy_app;[unknown];[libx.so.1];mid;leaf_[k] 3\n' > $WORK/want
expect_eq "folded" "$(cat $WORK/want)" "$(cat $WORK/out)"

# a probe without stack=true has none to give
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 1" -e 'probe("syscalls:sys_enter_getppid", function(e) e:stack() end)'
expect_eq "exit without stacks" 1 "$RC"
expect_grep "no call chain" "sys_enter_getppid has no call chain \(declare the probe with \{stack=true\}\)" $WORK/err

# the bundled report: where the event happens, by command, object, symbol
run_ltap $WORK/out $WORK/err report kmem:mm_page_alloc 'order == 0' -c "$PROGS/touch_pages $N" --top 3
expect_eq "report exit" 0 "$RC"
expect_grep "report header" "^# Overhead  Command +Shared Object +Symbol$" $WORK/out
expect_eq "report's first row" "touch_pages [kernel.kallsyms] [k] __alloc_frozen_pages_noprof" \
  "$(grep -m1 '%' $WORK/out | awk '{ print $2, $3, $4, $5 }')"
run_ltap $WORK/out $WORK/err report
expect_eq "report without an event" 2 "$RC"
expect_eq "report usage" "ltap: report: an EVENT is needed (see: ltap report -h)" "$(cat $WORK/err)"

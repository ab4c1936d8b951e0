# Derived events: pairs (latency), runs, the process tree; the latency script.
cat > $WORK/d.lua <<'LUA'
local derive, tree = require("ltap.derive"), require("ltap.proctree")
local pairs_n, runs, path = 0, {}, nil
derive.pairs{start = "syscalls:sys_enter_getppid", stop = "syscalls:sys_exit_getppid",
  fn = function(ns, s, e) if e.comm == "getppid_loop" and ns > 0 and s.time < e.time then pairs_n = pairs_n + 1 end end}
derive.runs{event = "syscalls:sys_enter_getppid", key = "tid", gap = "1s",
  fn = function(r) if r.count > 1 then runs[#runs + 1] = r.count end end}
probe("syscalls:sys_enter_getppid", function(e) if e.comm == "getppid_loop" then path = path or tree.path(e.pid) end end)
finish(function()
  table.sort(runs)
  printf("pairs=%d runs=%s path=%s exited=%s\n", pairs_n, table.concat(runs, ","), path,
    tostring(tree.get(ltap.target) and tree.get(ltap.target).exit ~= nil))
end)
LUA
# two loops, two tids: a run each (a run is one key's events no more than
# gap apart: 1 s, which a loop of syscalls never pauses for, loaded or not)
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 3000; $PROGS/getppid_loop 2000" $WORK/d.lua
expect_eq "exit" 0 "$RC"
expect_grep "pairs, runs, process tree" "^pairs=5000 runs=2000,3000 path=(.*;)?ltap;sh;getppid_loop exited=true$" $WORK/out

# the latency script: every pair counted, percentiles printed
run_ltap $WORK/out $WORK/err latency -c "$PROGS/getppid_loop 4321" syscalls:sys_enter_getppid syscalls:sys_exit_getppid
expect_eq "exit" 0 "$RC"
expect_grep "latency pairs" "^p50 .* p90 .* p99 .* max .*\(4321 pairs\)$" $WORK/out
P=$PROGS/uprobe_target
run_ltap $WORK/out $WORK/err latency -c "$P 1 1" u:$P:sleep10 ur:$P:sleep10
expect_grep "one pair" "^p50 [0-9.]+ [mu]?s .*\(1 pairs\)$" $WORK/out
# the pair lies inside the program's own measurement of the call, which
# sleeps 10 ms: 10 <= p50 <= its clock, within the printed rounding (three
# figures) and the trace clock's drift
awk '$1 == "clock" && $2 == "sleep10" { own = $3 }
     $1 == "p50" { v = $2; u = $3 == "s" ? 1000 : $3 == "us" ? 0.001 : 1; ms = v * u
                   tol = (v >= 100 ? 0.5 : v >= 10 ? 0.05 : 0.005) * u + 0.01 }
     END { printf "p50 %s ms, the program clock %s ms\n", ms, own
           exit !(own != "" && ms >= 10 - tol && ms <= own + tol) }' $WORK/out ||
  fail "latency of a 10 ms sleep outside [10 ms, the program's clock]"

# the boot-timing table from trace_marker writes in a saved text trace
run_ltap $WORK/out $WORK/err --input $SRCDIR/tests/data/boot-markers.txt timeline marker
expect_eq "timeline over text exit" 0 "$RC"
expect_eq "timeline over text" "0.000 Start
0.181 LinuxBoot copy kernel
1.371 LinuxBoot copy initrd
2.490 Stop

phase                         ms
Start                    181.000
LinuxBoot copy kernel   1190.000
LinuxBoot copy initrd   1119.000" "$(cat $WORK/out)"

# the latency script over a saved text trace with known pairs (two threads
# interleaved; 1, 1, 1, 1, 3, 3, 10 and 100 us): exact histogram and
# percentiles (nearest rank: p50 is the 4th of 8, p90 the 8th)
run_ltap $WORK/out $WORK/err --input $SRCDIR/tests/data/latency.txt latency syscalls:sys_enter_getppid syscalls:sys_exit_getppid
expect_eq "latency over text exit" 0 "$RC"
diff -u $SRCDIR/tests/data/latency.expected $WORK/out || fail "latency over text: output differs"
echo "ok: latency over text, exact"

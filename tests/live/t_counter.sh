# Counting-mode counters: exact counts per command, per pid, system-wide;
# ltap stat and its repeat statistics; unsupported and unknown counters.
# System-wide counts use getpgid, which no other process here calls (every
# bash that starts calls getppid 3 times, so a system-wide getppid count
# drifted by the shells other processes started meanwhile).
N=23456
cat > $WORK/c.lua <<'LUA'
local c = counter("syscalls:sys_enter_getpgid")
local sys = counter("syscalls:sys_enter_getpgid", {system = true})
local cyc = counter("cycles")
local traced = 0
probe("syscalls:sys_enter_getpgid", function(e) if e.comm == "getpgid_loop" then traced = traced + 1 end end)
finish(function()
  local v, s = c:read(), sys:read()
  local h, why = cyc:read()
  printf("counter=%d system=%d traced=%d cycles=%s (%s)\n", v, s, traced, tostring(h), why)
end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/c.lua
expect_eq "exit" 0 "$RC"
expect_eq "per command = system-wide = traced = N; no cycles here" \
  "counter=$N system=$N traced=$N cycles=nil (not supported)" "$(cat $WORK/out)"

# perf stat counts the same run shape alike
p=$(perf stat -x, -e syscalls:sys_enter_getpgid -- $PROGS/getpgid_loop $N 2>&1 >/dev/null | awk -F, '/sys_enter_getpgid/{print $1}')
expect_eq "perf stat agrees" "$N" "$p"

# per pid: a process that waits, then calls getppid N times
$PROGS/getppid_loop $N 400 & w=$!; STARTED+=($w)
run_ltap $WORK/out $WORK/err -p $w -d 1s -e 'local c = counter("syscalls:sys_enter_getppid") finish(function() print((c:read())) end)'
wait $w
expect_eq "per pid" "$N" "$(cat $WORK/out)"

# ltap stat: counts, N runs, hardware counters not supported, exit 0; the
# report on standard error, as perf stat prints it
run_ltap $WORK/err $WORK/err stat -r 3 -e syscalls:sys_enter_getppid,cycles -- $PROGS/getppid_loop 1000
expect_eq "stat exit" 0 "$RC"
expect_grep "stat header" "^ Performance counter stats for '.*getppid_loop 1000' \(3 runs\):$" $WORK/err
expect_grep "stat mean and +-" "^ +1000      syscalls:sys_enter_getppid +\( \+-  0\.00% \)$" $WORK/err
expect_grep "stat not supported" "^   <not supported>      cycles$" $WORK/err
expect_grep "stat elapsed" "^ +[0-9]+\.[0-9]{7} \+- [0-9]+\.[0-9]{7} seconds time elapsed  \( \+- *[0-9]+\.[0-9]{2}% \)$" $WORK/err

# repeat statistics against values computed here, from the per-run counts
run_ltap $WORK/out $WORK/err stat --json --per-run -r 5 -e page-faults,task-clock -o $WORK/stat.json -- $PROGS/touch_pages 300
expect_eq "stat json exit" 0 "$RC"
python3 - $WORK/stat.json <<'PY' || fail "repeat statistics"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["runs"] == 5 and len(d["per_run"]) == 5, d
for c in d["counters"]:
    xs = c["runs"]
    assert len(xs) == 5 and min(xs) > 0, c
    mean = sum(xs) / 5
    sem = math.sqrt(sum((x - mean) ** 2 for x in xs) / 4 / 5)
    assert abs(c["mean"] - mean) < 1e-6 * max(1, mean), (c, mean)
    assert abs(c["stderr"] - sem) < 1e-6 * max(1, sem), (c, sem)
    if c["event"] == "page-faults":
        assert min(xs) >= 300, xs
print("ok: mean and standard error of 5 runs match")
PY

# system-wide for a duration
run_ltap $WORK/out $WORK/err stat -a -d 200ms -e task-clock,context-switches
expect_eq "stat -a exit" 0 "$RC"
expect_grep "stat -a" "^ Performance counter stats for 'system wide':$" $WORK/err
expect_grep "stat -a elapsed" "^ +0\.2[0-9]+ seconds time elapsed$" $WORK/err

# unknown counters name themselves
run_ltap $WORK/out $WORK/err -e 'counter("tsak-clock")'
expect_grep "unknown counter" "counter: unknown counter 'tsak-clock' \(did you mean task-clock\?\)" $WORK/err
run_ltap $WORK/out $WORK/err stat -e kmem:no_such_event -- true
expect_grep "unknown tracepoint counter" "unknown counter 'kmem:no_such_event'" $WORK/err

# beyond perf: a figure of the script's own, per run, across runs
cat > $WORK/across.lua <<LUA
local s, across = stats(), stats()
probe("kmem:mm_page_alloc", function(e) s:inc(e.comm) end)
begin(function()
  for i = 1, 3 do
    s:clear()
    ltap.measure("$PROGS/touch_pages 2000", {})
    ltap.drain()
    across:add("touch_pages", s:count("touch_pages") or 0)
  end
  local st = across:get("touch_pages")
  printf("runs=%d min_ok=%s stddev_ok=%s\n", st.count, tostring(st.min >= 2000), tostring(st.stddev >= 0 and st.stddev < 200))
  exit()
end)
LUA
run_ltap $WORK/out $WORK/err $WORK/across.lua
expect_eq "per-run figures across runs" "runs=3 min_ok=true stddev_ok=true" "$(cat $WORK/out)"

# per CPU: the parts of a system-wide counter add up to its total
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 5000" -e 'local c = counter("syscalls:sys_enter_getpgid", {system = true})
finish(function() local sum = 0 for _, v in pairs(c:percpu()) do sum = sum + v end print(sum, (c:read())) end)'
expect_eq "per-CPU parts sum to the total" "$(printf '5000\t5000')" "$(cat $WORK/out)"

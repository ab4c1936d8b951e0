# Aggregates on live events: the interval-sum invariant, syscount and
# pagealloc-hist on a controlled workload, JSON documents parsed back.

# every event is counted in exactly one interval or counted as lost: the
# intervals and the lost count sum to N (a slow machine or the sanitizer
# build may lose some to a full ring; the accounting must still be exact),
# but for the task events ltap follows in the same ring (the command's
# task_newtask, task_rename, sched_process_exec, sched_process_exit: at
# most 4 here), which the kernel counts as lost alike when they are dropped
cat > $WORK/iv.lua <<'LUA'
local s = stats()
probe("syscalls:sys_enter_getppid", function(e) s:inc(e.comm) end)
local function flush() printf("interval %d\n", s:count("getppid_loop") or 0) s:clear() end
every("50ms", flush)
finish(flush)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 2000000" $WORK/iv.lua
expect_eq "exit" 0 "$RC"
lost=$(sed -nE 's/^ltap: lost ([0-9]+) events \(.*the ring was full.*/\1/p' $WORK/err)
counted=$(awk '/^interval/{s+=$2} END{print s}' $WORK/out)
total=$((counted + ${lost:-0}))
[ "$counted" -le 2000000 ] && [ "$total" -ge 2000000 ] && [ "$total" -le 2000004 ] ||
  fail "intervals counted $counted and ${lost:-0} were lost: expected N = 2000000 events (lost may include up to 4 task events)"
echo "ok: intervals $counted + lost ${lost:-0} = N (+ $((total - 2000000)) task events lost)"
[ "$counted" -ge 100000 ] || fail "only $counted of 2000000 events counted"
busy=$(awk '/^interval/ && $2 > 0 {n++} END{print n+0}' $WORK/out)
[ "$busy" -ge 3 ] || { cat $WORK/out; fail "only $busy intervals saw events: the invariant was not exercised"; }
echo "ok: $busy intervals with events"

# syscount: the workload's getppid calls, exactly, and its process row
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 12345" syscount -i 0 -n 50
expect_eq "exit" 0 "$RC"
expect_grep "getppid row" "^getppid +12345$" $WORK/out
line=$(grep -E '^getppid_loop ' $WORK/out)
n=$(echo "$line" | awk '{print $2}')
[ "$n" -ge 12345 ] || fail "getppid_loop made $n syscalls, expected at least 12345"
echo "ok: process row ($n calls)"

# syscount -L: latency per syscall, every call paired
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 5000" syscount -i 0 -n 50 -L
expect_eq "exit" 0 "$RC"
expect_grep "latency row" "^getppid +5000 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$" $WORK/out

# pagealloc-hist: order-0 allocations of touch_pages land in [4K, 8K)
run_ltap $WORK/out $WORK/err -c "$PROGS/touch_pages 20000" pagealloc-hist -n 50
expect_eq "exit" 0 "$RC"
expect_grep "histogram header" "^@\[touch_pages\]: count [0-9]+" $WORK/out
n=$(awk '/^@\[touch_pages\]/{f=1; next} f && /^\[4K, 8K\)/{print $3; exit}' $WORK/out)
[ -n "$n" ] && [ "$n" -ge 20000 ] || { cat $WORK/out; fail "[4K, 8K) bucket of touch_pages: '$n', expected >= 20000"; }
echo "ok: [4K, 8K) = $n"

# --format json: one document per interval, parsed back; the totals agree
run_ltap $WORK/out $WORK/err --format json -c "$PROGS/touch_pages 20000; sleep 0.35" pagealloc 0.1
expect_eq "exit" 0 "$RC"
python3 - $WORK/out <<'PY' || fail "JSON documents"
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert len(docs) >= 3, f"only {len(docs)} documents"
assert [d["report"] for d in docs] == list(range(1, len(docs) + 1)), "report numbers"
for d in docs:
    assert set(d) >= {"report", "time", "interval", "lost", "lost_per_cpu", "tables"}, d.keys()
    assert d["lost"] == 0 and d["interval"] > 0, d
    t = d["tables"][0]
    assert t["type"] == "stats" and t["keys"] == ["comm"], t
    sums = [r["sum"] for r in t["rows"]]
    assert sums == sorted(sums, reverse=True), "rows sorted by sum"
    assert "text" in d and d["text"] == "\n", repr(d.get("text"))
total = sum(r["sum"] for d in docs for r in d["tables"][0]["rows"] if r["key"] == "touch_pages")
assert total >= 20000, total
print(f"ok: {len(docs)} JSON documents, touch_pages {total} pages")
PY

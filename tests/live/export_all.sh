#!/bin/bash
# --export-all: every stats() aggregate a script makes while loading is
# exported, named after the variable holding it (a handler's upvalue, a
# global), as a histogram or a summary, with exact counts; one that nothing
# holds (made and dropped) is not; one already exported is not twice.
. "$(dirname "$0")/lib.sh"
N=40000
cat > $WORK/agg.lua <<'LUA'
local calls = stats()
local lat = stats{hist = "log2"}
bytes = stats()                          -- a global
local dropped = stats()                  -- made, then let go
dropped = nil
local shown = stats()
metrics.counter("shown_total", {source = shown, labels = {"comm"}, help = "exported by the script"})
local start = {}
probe("syscalls:sys_enter_getppid", function(e) calls:inc(e.comm) shown:inc(e.comm) start[e.tid] = e.time end)
probe("syscalls:sys_exit_getppid", function(e)
  local t = start[e.tid]
  if t then lat:add(e.comm, e.time - t) bytes:add(e.comm, e.cpu, 8) start[e.tid] = nil end
end)
LUA
"$LTAP" --serve 127.0.0.1:0 --export-all $WORK/agg.lua > $WORK/out 2> $WORK/err & L=$!; STARTED+=($L)
wait_for $WORK/err 'serving on 127\.0\.0\.1:[0-9]+'
A=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err)
expect_eq "aggregates exported" "agg_calls (summary),agg_lat (histogram),agg_bytes (summary)" \
  "$(sed -n 's/^ltap: export-all: //p' $WORK/err | paste -sd, -)"
"$PROGS/getppid_loop" $N
# the drain tick brings the last events within 110 ms: poll the metrics
for i in $(seq 50); do
  python3 $SRCDIR/tests/live/prom.py get http://$A/metrics > $WORK/m 2>/dev/null
  grep -q "^agg_lat_count{key=\"getppid_loop\"} $N\$" $WORK/m && break
  sleep 0.1 # poll
done
grep -E '^agg_|^# TYPE agg' $WORK/m | grep -v _bucket
expect_eq "summary count" $N "$(sed -n 's/^agg_calls_count{key="getppid_loop"} //p' $WORK/m)"
expect_eq "summary sum" $N "$(sed -n 's/^agg_calls_sum{key="getppid_loop"} //p' $WORK/m)"
expect_eq "histogram count" $N "$(sed -n 's/^agg_lat_count{key="getppid_loop"} //p' $WORK/m)"
expect_eq "histogram +Inf" $N "$(sed -n 's/^agg_lat_bucket{key="getppid_loop",le="+Inf"} //p' $WORK/m)"
expect_eq "two-part keys: sum over cpus" $((8 * N)) \
  "$(awk '/^agg_bytes_sum\{key1="getppid_loop",key2="[0-9]+"\}/ {s += $2} END {print s}' $WORK/m)"
expect_eq "the script's own metric, once" $N "$(sed -n 's/^shown_total{comm="getppid_loop"} //p' $WORK/m)"
expect_eq "types" "agg_calls summary,agg_lat histogram,agg_bytes summary" \
  "$(sed -n 's/^# TYPE \(agg_[a-z]*\) /\1 /p' $WORK/m | paste -sd, -)"
promtool check metrics < $WORK/m 2>&1 | grep -v 'no help text' | grep . && fail "promtool: problems besides missing help"
echo "ok: promtool check metrics (no help text is all it says)"
kill -TERM $L; wait $L || fail "exit $? after SIGTERM"

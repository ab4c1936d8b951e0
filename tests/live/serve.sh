#!/bin/bash
# ltap --serve as a service: bad clients (huge headers, slowloris, half-open,
# non-GET, unknown paths, garbage, a flood of idle connections) get an error
# or a closed connection in bounded time while tracing goes on with exact
# counts; a handler error is counted, not fatal; SIGTERM ends it cleanly;
# mistakes are refused before anything is attached.
. "$(dirname "$0")/lib.sh"
N=300000 M=250

cat > $WORK/serve.lua <<'LUA'
local calls = metrics.counter("getppid_calls_total", {labels = {"comm"}, help = "getppid() calls by process name"})
probe("syscalls:sys_enter_getppid", function(e) calls:inc(e.comm) end)
-- every getpgid of the workload is a script error: counted while serving,
-- not fatal (by comm: the probe is system-wide, other processes may call it)
probe("syscalls:sys_enter_getpgid", 'comm == "getpgid_loop"', function(e) error("no getpgid here") end)
LUA

# mistakes: a bad metric name at load time; the port already taken
run_ltap $WORK/out $WORK/err --serve 0 -e 'metrics.counter("bad name")'
expect_eq "bad metric name exit" 1 $RC
expect_grep "bad metric name message" "^ltap: -e:1: metrics: bad metric name 'bad name'" $WORK/err

"$LTAP" --serve 127.0.0.1:0 $WORK/serve.lua > $WORK/out 2> $WORK/err & L=$!; STARTED+=($L)
wait_for $WORK/err 'serving on 127\.0\.0\.1:[0-9]+'
A=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err)
run_ltap $WORK/out2 $WORK/err2 --serve $A $WORK/serve.lua
expect_eq "port in use exit" 1 $RC
expect_grep "port in use message" "^ltap: serve: cannot listen on 127\.0\.0\.1:${A##*:}: Address already in use" $WORK/err2
run_ltap $WORK/out2 $WORK/err2 --serve 127.0.0.1:99999 $WORK/serve.lua
expect_grep "bad port message" "^ltap: serve: bad port '99999'" $WORK/err2

# bad clients, each case in its own process so their waits overlap, while
# the workloads run; the flood first: when all slots are taken, the oldest
# connection not answered yet is closed, and that would be the half-open one
H="python3 $SRCDIR/tests/live/http_hostile.py $A"
$H flood > $WORK/h.flood 2>&1
for c in huge-header huge-uri post delete unknown-path garbage bad-version slow-reader half-open slowloris; do
  $H $c > $WORK/h.$c 2>&1 & STARTED+=($!)
done
"$PROGS/getppid_loop" $N
"$PROGS/getpgid_loop" $M
"$PROGS/getppid_loop" $N
wait $(jobs -p | grep -vx $L) 2>/dev/null || true
cat $WORK/h.*
expect_eq "huge header" "huge-header: 431" "$(cat $WORK/h.huge-header)"
expect_eq "huge uri" "huge-uri: 414" "$(cat $WORK/h.huge-uri)"
expect_eq "POST" "post: 405" "$(cat $WORK/h.post)"
expect_eq "DELETE" "delete: 405" "$(cat $WORK/h.delete)"
expect_eq "unknown path" "unknown-path: 404" "$(cat $WORK/h.unknown-path)"
expect_eq "garbage" "garbage: 400" "$(cat $WORK/h.garbage)"
expect_eq "HTTP/9.9" "bad-version: 505" "$(cat $WORK/h.bad-version)"
expect_eq "a reader that does not read" "slow-reader: 200" "$(cat $WORK/h.slow-reader)"
# a silent client goes at the 5 s inactivity timeout, a trickling one at the
# 10 s deadline (each byte resets the inactivity timeout); 100 idle
# connections do not keep a scraper out
expect_grep "half-open closed in 4-7 s" '^half-open: closed after [4-6]\.' $WORK/h.half-open
expect_grep "slowloris closed in 9-12 s" '^slowloris: closed after (9|10|11)\.' $WORK/h.slowloris
expect_grep "a scrape among 100 idle connections" '^flood: 200 after [0-1]\.' $WORK/h.flood

# the tracing went on, exactly; the errors were counted
python3 $SRCDIR/tests/live/prom.py get http://$A/metrics > $WORK/m 2>/dev/null
grep -E '^(getppid_calls_total\{comm="getppid_loop"|ltap_handler_errors|ltap_http_rejected|ltap_scrapes)' $WORK/m
expect_eq "getppid count" "$((2 * N))" "$(sed -n 's/^getppid_calls_total{comm="getppid_loop"} //p' $WORK/m)"
expect_eq "handler errors" "$M" "$(sed -n 's/^ltap_handler_errors_total //p' $WORK/m)"
expect_eq "404s counted" 1 "$(sed -n 's/^ltap_http_rejected_total{reason="not_found"} //p' $WORK/m)"
expect_eq "405s counted" 2 "$(sed -n 's/^ltap_http_rejected_total{reason="bad_method"} //p' $WORK/m)"
expect_eq "lost events" 0 "$(awk '/^ltap_events_lost_total/ {s += $2} END {print s}' $WORK/m)"
expect_grep "the first handler error shown with its traceback" "no getpgid here" $WORK/err
expect_eq "handler errors shown in full" 10 "$(grep -c 'no getpgid here' $WORK/err)"

# a few events, far below a ring's wake-up mark, reach the metrics within
# the drain tick even while scrapes keep waking the loop every 20 ms
python3 $SRCDIR/tests/live/prom.py poll http://$A/metrics "getppid_calls_total{comm=\"getppid_loop\"} $((2 * N + 7))" 20 \
  > $WORK/poll & p=$!
wait_for $WORK/poll polling
"$PROGS/getppid_loop" 7
wait $p || { cat $WORK/poll; fail "frequent scrapes held the drain back"; }
cat $WORK/poll

kill -TERM $L
wait $L || fail "ltap exited $? after SIGTERM"
expect_grep "errors summed up at the end" "serving: $M handler errors in all" $WORK/err

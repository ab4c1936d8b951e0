#!/bin/bash
# A real Prometheus (Debian's package, started here on loopback with its own
# storage and a 1 s scrape interval) scrapes two ltap exporters, two "hosts"
# each tracing its own workload: exact getppid counts per comm through
# Prometheus's query API, the latency histogram's count and every bucket
# against the aggregate ltap kept, and a sum by (comm) over both hosts. A
# third host runs the bundled syscall-exporter over processes that named
# themselves (prctl) in ways that collide if escaped carelessly: comm
# "k"+0xff and the four characters "k\xff", a newline and "\n", invalid
# UTF-8 and U+FFFD...: one series each in Prometheus and in the strict
# OpenMetrics parser, read back into the exact bytes, with exact counts.
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || fail "prometheus is not installed (make.sh installs it)"
N1=120000 N2=70000

cat > $WORK/exporter.lua <<'LUA'
local calls = metrics.counter("getppid_calls_total", {labels = {"comm"}, help = "getppid() calls by process name"})
local lat = metrics.histogram("getppid_duration_seconds", {labels = {"comm"}, scale = 1e-9,
  help = "getppid() from sys_enter to sys_exit"})
local start = {}
probe("syscalls:sys_enter_getppid", function(e) calls:inc(e.comm) start[e.tid] = e.time end)
probe("syscalls:sys_exit_getppid", function(e)
  local t = start[e.tid]
  if t then lat:add(e.comm, e.time - t) start[e.tid] = nil end
end)
-- the aggregate's own buckets, to compare with what Prometheus stored
finish(function()
  for _, b in ipairs(lat:hist("getppid_loop") or {}) do printf("%s %d\n", b.hi_open and "inf" or b.hi, b.count) end
end)
LUA

# host H: a workload held on a fifo (so it runs only once ltap serves), and
# an exporter tracing it (-p follows the shell's exec into getppid_loop)
start_host() { # start_host H N
  mkfifo $WORK/gate$1
  sh -c "read _ < $WORK/gate$1; exec $PROGS/getppid_loop $2" & eval W$1=$!; STARTED+=($!)
  "$LTAP" --serve 127.0.0.1:0 -p $(eval echo \$W$1) $WORK/exporter.lua > $WORK/hist$1 2> $WORK/err$1 & eval L$1=$!; STARTED+=($!)
}
start_host 1 $N1
start_host 2 $N2
# host 3: the adversarial names (hex), the i-th calling getppid 100 * i times
NAMES="6bff 6b5c786666 6b5c 6b5c5c 6e0a 6e5c6e 7122 715c22 75c3 75c3a9 755c786333 7a01 7a5c783031 65efbfbd 65ff 73eda080 735c7865645c7861305c783830"
i=0; for h in $NAMES; do i=$((i + 1)); echo "$h $((100 * i))"; done > $WORK/names
"$PROGS/comms" 100 @$WORK/gate3 $NAMES 2> $WORK/comms.err & W3=$!; STARTED+=($W3)
wait_for $WORK/comms.err '^waiting for'
"$LTAP" --serve 127.0.0.1:0 syscall-exporter -p $W3 > /dev/null 2> $WORK/err3 & L3=$!; STARTED+=($L3)
wait_for $WORK/err1 'serving on 127\.0\.0\.1:[0-9]+'
wait_for $WORK/err2 'serving on 127\.0\.0\.1:[0-9]+'
wait_for $WORK/err3 'serving on 127\.0\.0\.1:[0-9]+'
A1=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err1)
A2=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err2)
A3=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err3)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PROM=127.0.0.1:$PORT
cat > $WORK/prom.yml <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: ltap
    static_configs: [{targets: ["$A1", "$A2", "$A3"]}]
YML
prometheus --config.file=$WORK/prom.yml --storage.tsdb.path=$WORK/tsdb --web.listen-address=$PROM \
  > $WORK/prom.log 2>&1 & P=$!; STARTED+=($P)
python3 $SRCDIR/tests/live/prom.py targets $PROM 3 || { tail -5 $WORK/prom.log; fail "prometheus did not scrape both exporters"; }

echo > $WORK/gate1; echo > $WORK/gate2; : > $WORK/gate3
wait $W1 $W2 $W3
PQ="python3 $SRCDIR/tests/live/prom.py"
$PQ wait $PROM "getppid_calls_total{instance=\"$A1\",comm=\"getppid_loop\"}" $N1 || fail "host 1 count"
$PQ wait $PROM "getppid_calls_total{instance=\"$A2\",comm=\"getppid_loop\"}" $N2 || fail "host 2 count"
$PQ wait $PROM 'sum by (comm) (getppid_calls_total{comm="getppid_loop"})' $((N1 + N2)) || fail "sum by (comm)"
$PQ wait $PROM "getppid_duration_seconds_count{instance=\"$A1\",comm=\"getppid_loop\"}" $N1 || fail "histogram count 1"
$PQ wait $PROM "getppid_duration_seconds_count{instance=\"$A2\",comm=\"getppid_loop\"}" $N2 || fail "histogram count 2"
$PQ wait $PROM "sum(getppid_duration_seconds_bucket{le=\"+Inf\",comm=\"getppid_loop\"})" $((N1 + N2)) || fail "+Inf buckets"
# Prometheus asked for OpenMetrics (its Accept puts it first), and read it
$PQ wait $PROM 'count(up{job="ltap"} == 1)' 3 || fail "targets down"
$PQ wait $PROM 'count(ltap_scrapes_total{format="openmetrics"} > 0)' 3 || fail "prometheus did not take OpenMetrics"
# (before this test's own text GETs below: each counts as a text scrape,
# which Prometheus' next scrape would store)
$PQ wait $PROM 'sum(ltap_scrapes_total{format="text"})' 0 || fail "prometheus took the text format"
# every adversarial name its own series, read back to its bytes, exact counts
$PQ labels $PROM "syscalls_total{instance=\"$A3\",syscall=\"getppid\"}" comm $WORK/names || fail "names collide in Prometheus"
python3 $SRCDIR/tests/live/prom.py get http://$A3/metrics 'application/openmetrics-text;version=1.0.0' > $WORK/om3 2> /dev/null
/usr/bin/python3 $SRCDIR/tests/live/prom.py check-labels syscalls_total syscall=getppid comm $WORK/names < $WORK/om3 ||
  fail "names collide in the OpenMetrics parser"
python3 $SRCDIR/tests/live/prom.py get http://$A3/metrics > $WORK/text3 2> /dev/null
promtool check metrics < $WORK/text3 || fail "promtool check metrics rejects the adversarial names"

# both formats of one exporter checked by tools of the Prometheus project
python3 $SRCDIR/tests/live/prom.py get http://$A1/metrics > $WORK/text 2> $WORK/ctype
expect_grep "text format content type" 'text/plain; version=0.0.4' $WORK/ctype
promtool check metrics < $WORK/text || fail "promtool check metrics rejects ltap's text format"
echo "ok: promtool check metrics"
python3 $SRCDIR/tests/live/prom.py get http://$A1/metrics 'application/openmetrics-text;version=1.0.0' > $WORK/om 2> $WORK/ctype
expect_grep "openmetrics content type" 'application/openmetrics-text; version=1.0.0' $WORK/ctype
expect_eq "openmetrics ends with # EOF" "# EOF" "$(tail -1 $WORK/om)"
/usr/bin/python3 $SRCDIR/tests/live/prom.py check-openmetrics < $WORK/om || fail "the OpenMetrics parser rejects ltap's output"

# the buckets Prometheus stored; then SIGTERM: a clean end where each
# exporter prints its aggregate's buckets, to compare
$PQ dump-buckets $PROM "getppid_duration_seconds_bucket{instance=\"$A1\",comm=\"getppid_loop\"}" > $WORK/prom1
$PQ dump-buckets $PROM "getppid_duration_seconds_bucket{instance=\"$A2\",comm=\"getppid_loop\"}" > $WORK/prom2
kill -TERM $L1 $L2 $L3
wait $L1 || fail "exporter 1 exit $?"
wait $L2 || fail "exporter 2 exit $?"
wait $L3 || fail "exporter 3 exit $?"
$PQ compare-buckets $WORK/prom1 $WORK/hist1 1e-9 || fail "host 1: Prometheus's buckets are not the aggregate's"
$PQ compare-buckets $WORK/prom2 $WORK/hist2 1e-9 || fail "host 2: Prometheus's buckets are not the aggregate's"
kill -TERM $P; wait $P || true

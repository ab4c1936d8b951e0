#!/bin/bash
# A real Prometheus (Debian's package, started here on loopback with its own
# storage and a 1 s scrape interval) scrapes two ltap exporters, two "hosts"
# each tracing its own workload: exact getppid counts per comm through
# Prometheus's query API, the latency histogram's count and every bucket
# against the aggregate ltap kept, and a sum by (comm) over both hosts.
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
wait_for $WORK/err1 'serving on 127\.0\.0\.1:[0-9]+'
wait_for $WORK/err2 'serving on 127\.0\.0\.1:[0-9]+'
A1=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err1)
A2=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' $WORK/err2)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PROM=127.0.0.1:$PORT
cat > $WORK/prom.yml <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: ltap
    static_configs: [{targets: ["$A1", "$A2"]}]
YML
prometheus --config.file=$WORK/prom.yml --storage.tsdb.path=$WORK/tsdb --web.listen-address=$PROM \
  > $WORK/prom.log 2>&1 & P=$!; STARTED+=($P)
python3 $SRCDIR/tests/live/prom.py targets $PROM 2 || { tail -5 $WORK/prom.log; fail "prometheus did not scrape both exporters"; }

echo > $WORK/gate1; echo > $WORK/gate2
wait $W1 $W2
PQ="python3 $SRCDIR/tests/live/prom.py"
$PQ wait $PROM "getppid_calls_total{instance=\"$A1\",comm=\"getppid_loop\"}" $N1 || fail "host 1 count"
$PQ wait $PROM "getppid_calls_total{instance=\"$A2\",comm=\"getppid_loop\"}" $N2 || fail "host 2 count"
$PQ wait $PROM 'sum by (comm) (getppid_calls_total{comm="getppid_loop"})' $((N1 + N2)) || fail "sum by (comm)"
$PQ wait $PROM "getppid_duration_seconds_count{instance=\"$A1\",comm=\"getppid_loop\"}" $N1 || fail "histogram count 1"
$PQ wait $PROM "getppid_duration_seconds_count{instance=\"$A2\",comm=\"getppid_loop\"}" $N2 || fail "histogram count 2"
$PQ wait $PROM "sum(getppid_duration_seconds_bucket{le=\"+Inf\",comm=\"getppid_loop\"})" $((N1 + N2)) || fail "+Inf buckets"
# Prometheus asked for OpenMetrics (its Accept puts it first), and read it
$PQ wait $PROM 'count(up{job="ltap"} == 1)' 2 || fail "targets down"
$PQ wait $PROM 'count(ltap_scrapes_total{format="openmetrics"} > 0)' 2 || fail "prometheus did not take OpenMetrics"
$PQ wait $PROM 'sum(ltap_scrapes_total{format="text"})' 0 || fail "prometheus took the text format"

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
kill -TERM $L1 $L2
wait $L1 || fail "exporter 1 exit $?"
wait $L2 || fail "exporter 2 exit $?"
$PQ compare-buckets $WORK/prom1 $WORK/hist1 1e-9 || fail "host 1: Prometheus's buckets are not the aggregate's"
$PQ compare-buckets $WORK/prom2 $WORK/hist2 1e-9 || fail "host 2: Prometheus's buckets are not the aggregate's"
kill -TERM $P; wait $P || true

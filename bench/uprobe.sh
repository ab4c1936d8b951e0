#!/usr/bin/env bash
# bench/uprobe.sh: per-hit cost of a uprobe counted per comm: ltap (Lua
# handler) against bpftrace (uprobe:...{ @[comm] = count(); }) on the same
# binary and workload (tests/progs/uprobe_target calling f() N times).
#   sudo bench/uprobe.sh          N=200000, 5 rounds, medians
set -u
export LC_ALL=C
N=${N:-200000}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
P=${PROG:-$TOP/build/tests/uprobe_target}
die() { echo "uprobe.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
command -v bpftrace >/dev/null || die "missing: bpftrace"
[[ -x $LTAP && -x $P ]] || die "missing: $LTAP or $P (build first)"
exec 9>/run/lock/ltap-live-tests.lock
flock 9
TMP=$(mktemp -d /tmp/ltap-ubench.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

wall() { local t0=$EPOCHREALTIME; "$P" "$N" 0 > /dev/null; local t1=$EPOCHREALTIME; echo "$t0 $t1" | awk '{printf "%.0f\n", ($2 - $1) * 1e9}'; }
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

cat > $TMP/count.lua <<LUA
local n = {}
probe("u:$P:f", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)
LUA

for r in $(seq $ROUNDS); do
  wall >> $TMP/none
  "$LTAP" -v $TMP/count.lua > $TMP/l.out 2> $TMP/l.err & l=$!; PIDS+=($l)
  for _ in $(seq 200); do grep -q attached $TMP/l.err && break; sleep 0.02; done
  wall >> $TMP/ltap
  sleep 0.3; kill -INT $l; wait $l
  grep -E '^uprobe_target ' $TMP/l.out | awk '{print $2}' >> $TMP/ltap_n
  bpftrace -e "uprobe:$P:f { @[comm] = count(); }" > $TMP/b.out 2>&1 & b=$!; PIDS+=($b)
  for _ in $(seq 300); do grep -q Attaching $TMP/b.out && break; sleep 0.02; done
  sleep 0.5
  wall >> $TMP/bpf
  kill -INT $b; wait $b
  grep -E 'uprobe_target' $TMP/b.out | sed 's/.*: //' >> $TMP/bpf_n
done
none=$(median < $TMP/none); lt=$(median < $TMP/ltap); bp=$(median < $TMP/bpf)
echo "per round wall ns: none $(tr "\n" " " < $TMP/none)/ ltap $(tr "\n" " " < $TMP/ltap)/ bpftrace $(tr "\n" " " < $TMP/bpf)"
awk -v n=$N -v r=$ROUNDS -v none=$none -v lt=$lt -v bp=$bp -v lc="$(tr '\n' ' ' < $TMP/ltap_n)" -v bc="$(tr '\n' ' ' < $TMP/bpf_n)" 'BEGIN {
  printf "N=%d calls of f(), medians of %d rounds; ns per hit = (traced wall - plain wall) / N\n", n, r
  printf "%-9s %10s %11s  %s\n", "tool", "wall ms", "ns per hit", "counted (per round)"
  printf "%-9s %10.1f %11s  %s\n", "none", none / 1e6, "-", "-"
  printf "%-9s %10.1f %11.0f  %s\n", "ltap", lt / 1e6, (lt - none) / n, lc
  printf "%-9s %10.1f %11.0f  %s\n", "bpftrace", bp / 1e6, (bp - none) / n, bc
  printf "ratio ltap/bpftrace per hit: %.2f\n", (lt - none) / (bp - none)
}'
grep -q . /sys/kernel/tracing/uprobe_events && die "uprobe_events not empty after the runs"
exit 0

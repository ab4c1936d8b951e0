#!/usr/bin/env bash
# bench/profile.sh — symbolizing and folding a system-wide profile: ltap
# against perf record + perf script, on the same workload shape.
#
#   sudo bench/profile.sh              10 s at 999 Hz, all CPUs
#   sudo SECS=5 HZ=499 bench/profile.sh
#
# Workload for both runs: tests/progs/hot (a PIE with DWARF) on one CPU, and
# a shell loop of short-lived processes (ls, cat) beside it, so the stacks
# span kernel, libc, ld.so and processes that exit before the end.
#   ltap: `ltap profile -F HZ -a -d SECS --folded FILE`; its CPU time
#         (user+sys of the whole run: ring reading, Lua, symbols, folding).
#   perf: `perf record -F HZ -a -g -o DATA -- sleep SECS`, then the CPU
#         time of `perf script -i DATA` alone (symbolizing and printing the
#         stacks, the input stackcollapse-perf.pl folds; the fold itself is
#         not counted for perf). Ratio = perf script / ltap; the CPU of
#         perf record while it records is shown too, and a second ratio with
#         it, since ltap's figure includes its own reading of the rings.
set -u
export LC_ALL=C
SECS=${SECS:-10}
HZ=${HZ:-999}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
HOT=${HOT:-$TOP/build/tests/hot}
LOCK=/run/lock/ltap-live-tests.lock
W=$(mktemp -d /tmp/ltap-bench.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"; }
trap cleanup EXIT
die() { echo "profile.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ -x $LTAP && -x $HOT ]] || die "build first (cmake --build build): need $LTAP and $HOT"
command -v perf >/dev/null || die "perf is not installed"

workload() { # runs for SECS + 1 s in the background
	"$HOT" $((SECS + 1)) & PIDS+=($!)
	( end=$((SECONDS + SECS + 1)); while ((SECONDS < end)); do ls /usr/lib > /dev/null; cat /proc/self/stat > /dev/null; done ) & PIDS+=($!)
}

cpu_of() { # cpu_of FILE: "user sys" from /usr/bin/time -f
	awk '{ printf "%.2f", $1 + $2 }' "$1"
}

exec 9>$LOCK
flock 9

workload
/usr/bin/time -f "%U %S" -o $W/ltap.time "$LTAP" profile -F $HZ -a -d ${SECS}s --folded $W/ltap.folded --top 10 > $W/ltap.report 2> $W/ltap.err
wait "${PIDS[@]}" 2>/dev/null; PIDS=()
ltap_cpu=$(cpu_of $W/ltap.time)
ltap_samples=$(awk '{ s += $NF } END { print s }' $W/ltap.folded)

workload
/usr/bin/time -f "%U %S" -o $W/rec.time perf record -q -F $HZ -a -g -o $W/perf.data -- sleep $SECS 2> /dev/null
wait "${PIDS[@]}" 2>/dev/null; PIDS=()
/usr/bin/time -f "%U %S" -o $W/perf.time perf script -i $W/perf.data > $W/perf.script 2> /dev/null
perf_cpu=$(cpu_of $W/perf.time)
rec_cpu=$(cpu_of $W/rec.time)
perf_samples=$(grep -c "^$" $W/perf.script)

printf "%-6s %9s %12s %14s\n" tool samples "cpu s" "us/sample"
printf "%-6s %9d %12s %14.1f\n" ltap "$ltap_samples" "$ltap_cpu" "$(echo "$ltap_cpu * 1000000 / $ltap_samples" | bc -l)"
printf "%-6s %9d %12s %14.1f\n" perf "$perf_samples" "$perf_cpu" "$(echo "$perf_cpu * 1000000 / $perf_samples" | bc -l)"
printf "%-6s %9s %12s\n" "perf record (while recording)" "" "$rec_cpu"
printf "ratio perf script / ltap (cpu per sample): %.2f\n" \
	"$(echo "($perf_cpu / $perf_samples) / ($ltap_cpu / $ltap_samples)" | bc -l)"
printf "ratio perf record + perf script / ltap (cpu per sample): %.2f\n" \
	"$(echo "(($perf_cpu + $rec_cpu) / $perf_samples) / ($ltap_cpu / $ltap_samples)" | bc -l)"
echo "ltap's top rows:"; sed -n '6,10p' $W/ltap.report

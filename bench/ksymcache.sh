#!/bin/bash
# ksymcache.sh: what the kernel symbol cache costs a run at start
# (runtime/ksymcache.c): CPU (task-clock) of `ltap -e` naming one kernel
# address, ROUNDS runs each, with the cache, and with LTAP_KSYM_CACHE=off
# (the whole of /proc/kallsyms read), for build LTAP and, when given, BASE
# (the cache formats differ: each build's runs make their own first, the
# first run of each is not counted). Median and min..max in ms.
#
#   sudo bench/ksymcache.sh
#   sudo BASE=/work/main/build/ltap ROUNDS=40 bench/ksymcache.sh
#
# Holds the bench lock (CPU figures); it touches no tracing state.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
LTAP=${LTAP:-$TOP/build/ltap}
BASE=${BASE:-}
ROUNDS=${ROUNDS:-40}
die() { echo "ksymcache.sh: $*" >&2; exit 2; }
[[ -x $LTAP ]] || die "no $LTAP (build first)"
command -v perf > /dev/null || die "perf is not installed (make.sh installs linux-perf)"
TMP=$(mktemp -d /tmp/ltap-ksymbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
addr=$(awk '$3 == "schedule" { print $1; exit }' /proc/kallsyms)
[[ -n $addr && $addr != 0000000000000000 ]] || die "no kernel addresses in /proc/kallsyms"
echo "begin(function() local n, o = sym(0x$addr + 4) assert(n == 'schedule' and o == 4) exit() end)" > "$TMP/s.lua"

exec 8>/run/lock/ltap-bench.lock
flock 8
# runs BUILD [ENV...]: ROUNDS task-clock ms, one a line
runs() {
	local b=$1; shift
	env "$@" "$b" "$TMP/s.lua" # makes this build's cache (not counted)
	for ((i = 0; i < ROUNDS; i++)); do
		env "$@" perf stat -x, -e task-clock -o "$TMP/st" -- "$b" "$TMP/s.lua"
		awk -F, '$3 == "task-clock" { printf "%.3f\n", $1 }' "$TMP/st"
	done
}
show() { # show NAME FILE
	printf '%-34s median %6.2f ms  (%s..%s, %d runs)\n' "$1" "$(median $(cat "$2"))" "$(sort -g "$2" | head -1)" \
		"$(sort -g "$2" | tail -1)" "$(wc -l < "$2")"
}
echo "$(date -u +%FT%TZ); machine shared with other checkouts; cache $(stat -c %s /run/ltap/kallsyms 2>/dev/null || echo ?) bytes"
for which in BASE LTAP; do
	b=${!which}
	[[ -n $b ]] || continue
	runs "$b" > "$TMP/$which.on"
	runs "$b" LTAP_KSYM_CACHE=off > "$TMP/$which.off"
	show "$which with the cache" "$TMP/$which.on"
	show "$which, LTAP_KSYM_CACHE=off" "$TMP/$which.off"
done

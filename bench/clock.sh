#!/bin/bash
# clock.sh: e.time against the traced program's own CLOCK_MONOTONIC over a
# long run (runtime/ringclock.h): tests/progs/clockwin makes BURST getsid()
# calls between clock reads every INTERVAL_MS, ltap -p records each event's
# e.time, and tests/live/clockwin.py reports, per stretch of STRETCH_MIN
# minutes, how many events fell outside their windows and by how much, and
# the median e.time - T0 of the tight windows (< 1 us); ltap -v says how far
# the ring's clock drifted from CLOCK_MONOTONIC over the run (what a
# constant offset, ltap before 2026-12-05, would be off by at the end).
#
#   sudo bench/clock.sh                 # an hour
#   sudo bench/clock.sh 300             # five minutes
#   INTERVAL_MS=1000 BURST=10 STRETCH_MIN=5 LTAP=build/ltap
#
# A run of more than two minutes holds the live-test lock only while ltap
# starts and while it ends, not the whole time: other checkouts' live tests
# run meanwhile. They leave ltap's instance alone: it is named after a
# running ltap (ltap-PID), which the test engine ignores. The run touches no
# other kernel state (-p: getsid of one process) and takes no bench lock:
# its figures are the program's own clock reads, not CPU times.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
SECS=${1:-3600}
INTERVAL_MS=${INTERVAL_MS:-1000}
BURST=${BURST:-10}
STRETCH_MIN=${STRETCH_MIN:-5}
LTAP=${LTAP:-$TOP/build/ltap}
CLOCKWIN=$TOP/build/tests/clockwin
LOCK=/run/lock/ltap-live-tests.lock
die() { echo "clock.sh: $*" >&2; exit 2; }
[[ -x $LTAP && -x $CLOCKWIN ]] || die "build first (./make.sh test builds $LTAP and $CLOCKWIN)"
[[ $(id -u) == 0 ]] || die "run as root"

TMP=$(mktemp -d /tmp/ltap-clock.XXXXXX)
# copies: a rebuild during a long run does not change what runs
cp "$LTAP" "$TMP/ltap"
cp "$CLOCKWIN" "$TMP/clockwin"
LTAP=$TMP/ltap CLOCKWIN=$TMP/clockwin
W= L=
cleanup() {
	[[ -n $W ]] && kill "$W" 2>/dev/null || true
	[[ -n $L ]] && kill -INT "$L" 2>/dev/null && wait "$L" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
cat > "$TMP/t.lua" <<'LUA'
local out = assert(io.open(arg[1], "w"))
probe("syscalls:sys_enter_getsid", function(e) out:write(e.time, "\n") end)
finish(function() out:close() end)
LUA

whole=$((SECS <= 120))
exec 9>"$LOCK"
flock 9
rounds=$((SECS * 1000 / INTERVAL_MS))
"$CLOCKWIN" "$rounds" "$INTERVAL_MS" "$BURST" "@$TMP/gate" > "$TMP/win" 2> "$TMP/win.err" & W=$!
wait_line "$TMP/win.err" "waiting for" 10 "$W" || die "clockwin did not start"
"$LTAP" -v -p "$W" "$TMP/t.lua" "$TMP/ev" > "$TMP/out" 2> "$TMP/err" & L=$!
wait_line "$TMP/err" "attached in" 30 "$L" || { cat "$TMP/err"; die "ltap did not attach"; }
((whole)) || flock -u 9
echo "$(date -u +%FT%TZ) ltap $(sed -n 's/.*\(attached in.*\)/\1/p' "$TMP/err"), tracing clockwin for $SECS s" \
	"($rounds rounds of $BURST every $INTERVAL_MS ms; lock held $(((whole)) && echo throughout || echo 'at start and end'))"
: > "$TMP/gate"
wait "$W" || die "clockwin failed"
W=
((whole)) || flock 9
kill -INT "$L"
wait "$L" || true
L=
flock -u 9
grep '^ltap: clock:' "$TMP/err" || true
python3 "$TOP/tests/live/clockwin.py" report "$TMP/win" "$TMP/ev" "$STRETCH_MIN"

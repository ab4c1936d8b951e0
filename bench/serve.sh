#!/usr/bin/env bash
# bench/serve.sh — the cost of serving /metrics while tracing at a high rate.
#
#   sudo bench/serve.sh                  N=200000000 getppid calls (~30 s traced here),
#                                        RATE=200 scrapes/s, 3 rounds, rings of B=64M
#   sudo N=5000000 ROUNDS=1 bench/serve.sh
#
# Each round traces the same workload (getppid_loop N, a counter per comm
# exported by metrics.counter) three ways, in turn:
#   plain    ltap SCRIPT                     (no listener)
#   serving  ltap --serve 127.0.0.1:0 SCRIPT (listening, nobody scrapes)
#   scraped  the same, with bench/scraper.py sending RATE scrapes/s for as
#            long as the workload runs (a second process, loopback)
# and reports per way: ltap's CPU per event (utime+stime during the workload
# and until ltap went idle, / N, as bench/run.sh measures it), the events
# counted (must be N) and lost (ltap_events_lost_total / ltap's own report),
# and for the scraped way: scrapes sent, answered, their latency, and the
# CPU per scrape (scraped - serving CPU, / scrapes). See bench/README.md.
set -u
export LC_ALL=C

N=${N:-200000000}
RATE=${RATE:-200}
B=${B:-64M}       # per-CPU ring: a larger one than the default 8M keeps the
                  # losses of a machine shared with other work out of the way
ROUNDS=${ROUNDS:-3}
SETTLE=${SETTLE:-0.5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}

die() { echo "serve.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ -x $LTAP ]] || die "no ltap at $LTAP (build it, or set LTAP=)"
for t in gcc python3; do command -v $t >/dev/null || die "missing: $t"; done
. "$HERE/lib.sh"

HZ=$(getconf CLK_TCK)
TMP=$(mktemp -d /tmp/ltap-bench-serve.XXXXXX) || die "mktemp failed"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

W=$TMP/getppid_loop
gcc -O2 -o "$W" "$TOP/tests/progs/getppid_loop.c" || die "cannot compile getppid_loop"
cp "$LTAP" "$TMP/ltap"
cat >"$TMP/count.lua" <<'EOF'
local calls = metrics.counter("getppid_calls_total", {labels = {"comm"}, help = "getppid() calls by process name"})
probe("syscalls:sys_enter_getppid", function(e) calls:inc(e.comm) end)
finish(function() printf("%d\n", calls:sum("getppid_loop") or 0) end)
EOF

# one way of one round -> CPU_NS WALL_S COUNT LOST [SCRAPES]
measure() {     # measure plain|serving|scraped
	local way=$1 out=$TMP/out err=$TMP/err pid c0 t0 addr lost sp
	: >"$out"; : >"$err"; rm -f "$TMP/stop" "$TMP/scrapes"
	# hold the live-test lock for this measurement only (tests would see
	# the instance and disturb the timings)
	exec 9>/run/lock/ltap-live-tests.lock
	flock 9
	if [[ $way == plain ]]; then
		"$TMP/ltap" -v -b "$B" "$TMP/count.lua" >"$out" 2>"$err" &
	else
		"$TMP/ltap" -v -b "$B" --serve 127.0.0.1:0 "$TMP/count.lua" >"$out" 2>"$err" &
	fi
	pid=$!; PIDS+=("$pid")
	wait_line "$err" "attached in" 30 "$pid" || { cat "$err" >&2; die "ltap did not attach"; }
	[[ $way == plain ]] || wait_line "$err" "serving on" 30 "$pid" || die "ltap does not serve"
	addr=$(sed -n 's/.*serving on \([^ ]*\).*/\1/p' "$err")
	snooze "$SETTLE"
	proc_ticks "$pid"; c0=$TICKS
	if [[ $way == scraped ]]; then
		python3 "$HERE/scraper.py" "$addr" "$RATE" "$TMP/stop" "$TMP/scrapes" & sp=$!; PIDS+=("$sp")
	fi
	now_us; t0=$NOW
	"$W" "$N"
	now_us
	WALL=$(awk -v a="$t0" -v b="$NOW" 'BEGIN {printf "%.2f", (b - a) / 1e6}')
	if [[ $way == scraped ]]; then touch "$TMP/stop"; wait "$sp"; fi
	settle_cpu "$pid"
	proc_ticks "$pid"
	CPU_NS=$(((TICKS - c0) * 1000000000 / HZ))
	LOST=0
	if [[ $way != plain ]]; then
		python3 "$TOP/tests/live/prom.py" get "http://$addr/metrics" >"$TMP/m" 2>/dev/null
		LOST=$(awk '/^ltap_events_lost_total/ {s += $2} END {print s + 0}' "$TMP/m")
	fi
	kill -INT "$pid"; wait "$pid"
	flock -u 9
	COUNT=$(cat "$out")
	lost=$(sed -n 's/^ltap: lost \([0-9]*\) events.*/\1/p' "$err")
	((${lost:-0} > LOST)) && LOST=$lost
	SCRAPES=$(cat "$TMP/scrapes" 2>/dev/null || echo -)
}

declare -A cpu wall count lost
scr=()
echo "ltap serving benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs"
echo "  ltap $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)$(git -C "$TOP" diff --quiet 2>/dev/null || echo '+dirty'); workload getppid_loop $N; $RATE scrapes/s; $ROUNDS rounds; -b $B"
for ((r = 1; r <= ROUNDS; r++)); do
	printf 'round %d/%d:' "$r" "$ROUNDS"
	for way in plain serving scraped; do
		printf ' %s' "$way"
		measure $way
		cpu[$way]+="$CPU_NS "; wall[$way]+="$WALL "; count[$way]+="$COUNT "; lost[$way]+="$LOST "
		[[ $way == scraped ]] && scr+=("$SCRAPES")
	done
	printf '\n'
done

echo
echo "| way | workload wall s | ltap CPU ns/event | counted | lost |"
echo "|---|---|---|---|---|"
for way in plain serving scraped; do
	printf '| %s | %s | %s | %s | %s |\n' "$way" "$(median ${wall[$way]})" \
		"$(awk -v c="$(median ${cpu[$way]})" -v n="$N" 'BEGIN {printf "%.1f", c / n}')" \
		"$(echo ${count[$way]} | tr ' ' '\n' | sort -u | tr '\n' ' ')" "$(echo ${lost[$way]})"
done
echo
echo "scrapes per round (sent answered failed p50_ms p99_ms max_ms seconds):"
printf '  %s\n' "${scr[@]}"
c_serv=$(median ${cpu[serving]}); c_scr=$(median ${cpu[scraped]}); c_pl=$(median ${cpu[plain]})
sent=$(printf '%s\n' "${scr[@]}" | awk '{s += $1} END {print s / NR}')
echo
echo "CPU per scrape (scraped - serving, / scrapes sent): $(awk -v a="$c_scr" -v b="$c_serv" -v s="$sent" 'BEGIN {printf "%.0f us", (a - b) / s / 1000}')"
echo "ratios of ltap CPU: serving/plain $(awk -v a="$c_serv" -v b="$c_pl" 'BEGIN {printf "%.3f", a / b}')," \
	"scraped/plain $(awk -v a="$c_scr" -v b="$c_pl" 'BEGIN {printf "%.3f", a / b}')"
echo "per-round CPU ns: plain ${cpu[plain]}| serving ${cpu[serving]}| scraped ${cpu[scraped]}"

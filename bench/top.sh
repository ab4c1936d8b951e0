#!/usr/bin/env bash
# bench/top.sh — what a live top view costs: ltap top against perf top, each
# in a real terminal (a tmux pane, 150x45), system-wide at its default
# frequency (4000 Hz for both), on a busy machine.
#
#   sudo bench/top.sh                 20 s each, the CPU of 5..20 s counted
#   sudo SECS=30 bench/top.sh
#
# Workload for both runs: tests/progs/hot on every CPU (the machine busy:
# every sample lands in a process, none in idle) and a shell loop of
# short-lived processes (ls, cat), so new processes and libraries keep
# coming, as on a build machine. Measured: user+sys CPU of the tool's
# process (/proc/PID/stat) from 5 s after its start to the end, as a share
# of one CPU; the first seconds (loading symbols) are shown apart. Each run
# holds the live-test lock for its own duration only.
set -u
export LC_ALL=C
SECS=${SECS:-20}
WARM=5
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
HOT=${HOT:-$TOP/build/tests/hot}
LOCK=/run/lock/ltap-live-tests.lock
SOCK=ltap-bench-$$
W=$(mktemp -d /tmp/ltap-bench.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; tmux -L $SOCK kill-server 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
die() { echo "top.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ -x $LTAP && -x $HOT ]] || die "build first (cmake --build build): need $LTAP and $HOT"
command -v perf >/dev/null || die "perf is not installed"
command -v tmux >/dev/null || die "tmux is not installed"
HZ_TICK=$(getconf CLK_TCK)

workload() { # runs for SECS + 2 s in the background
	for _ in $(seq "$(nproc)"); do "$HOT" $((SECS + 2)) > /dev/null & PIDS+=($!); done
	( end=$((SECONDS + SECS + 2)); while ((SECONDS < end)); do ls /usr/lib > /dev/null; cat /proc/self/stat > /dev/null; done ) & PIDS+=($!)
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# run NAME CMD...: CMD in a tmux pane under the lock; prints "warm total"
# CPU shares (percent of one CPU) of the startup and of the rest
run() {
	local name=$1; shift
	rm -f "$W/pid"
	printf '%q ' "$@" > "$W/cmd"
	echo "flock $LOCK bash -c 'echo \$\$ > $W/pid; exec $(cat "$W/cmd")' 2> $W/$name.err; sleep 60" > "$W/$name.sh"
	workload
	tmux -L $SOCK new-session -d -s "$name" -x 150 -y 45 "bash $W/$name.sh" 9>&-
	for _ in $(seq 600); do [[ -s $W/pid ]] && break; sleep 0.1; done
	local pid; pid=$(cat "$W/pid") || die "$name did not start"
	# the lock may be another's for a while: count from the tool's exec
	for _ in $(seq 6000); do [[ $(readlink /proc/$pid/exe) != */flock && $(readlink /proc/$pid/exe) != */bash ]] && break; sleep 0.1; done
	local t0 t1 t2 c0 c1 c2
	t0=$(date +%s.%N); c0=$(cpu_ticks "$pid")
	sleep $WARM
	t1=$(date +%s.%N); c1=$(cpu_ticks "$pid")
	sleep $((SECS - WARM))
	t2=$(date +%s.%N); c2=$(cpu_ticks "$pid")
	tmux -L $SOCK capture-pane -p -t "$name" | head -8 > "$W/$name.screen"
	tmux -L $SOCK send-keys -t "$name" q
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill "$pid" 2>/dev/null
	tmux -L $SOCK kill-session -t "$name"
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; PIDS=()
	awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v hz="$HZ_TICK" \
		'BEGIN { printf "%.2f %.2f\n", 100 * (c1 - c0) / hz / (t1 - t0), 100 * (c2 - c1) / hz / (t2 - t1) }'
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $SECS s each, CPU counted from ${WARM} s"
read -r lw lr < <(run ltap "$LTAP" top -a)
echo "--- ltap top's screen:"; cat "$W/ltap.screen"
read -r pw pr < <(run perf perf top)
echo "--- perf top's screen:"; cat "$W/perf.screen"
printf "%-10s %14s %14s\n" "" "first ${WARM} s" "then"
printf "%-10s %13s%% %13s%%\n" "ltap top" "$lw" "$lr" "perf top" "$pw" "$pr"
awk -v l="$lr" -v p="$pr" 'BEGIN { if (l > 0) printf "perf top / ltap top CPU: %.1fx\n", p / l }'

#!/usr/bin/env bash
# bench/run.sh — the cost of counting one syscall tracepoint per process name,
# for the same workload, with no tracer, bpftrace, perf record and ltap.
#
#   sudo bench/run.sh                  N=2000000 events, 5 rounds, medians
#   sudo N=500000 ROUNDS=3 bench/run.sh
#   LTAP=/path/to/ltap sudo -E bench/run.sh
#   sudo BASE=/other/build/ltap bench/run.sh   a second ltap measured beside in every round
#                                              (its Lua table and its stats():inc)
#
# ltap's rows: its Lua table (a handler: n[e.comm] = (n[e.comm] or 0) + 1),
# stats():inc as a handler (function(e) n:inc(e.comm) end, which ltap runs in
# C: bindings/lower.c), the same called from Lua (a shape not run in C), and
# s:by (the aggregate fed in C, by name).
#   sudo FILTER=comm bench/run.sh      every tool filters on comm in the kernel
#
# Like with like: by default no tool gets a predicate (each counts every
# getppid of the system per comm); with FILTER=comm each gets the same kernel
# filter (bpftrace's predicate, perf --filter, ltap's probe filter).
#
# See bench/README.md for what each column means.
set -u
export LC_ALL=C

N=${N:-2000000}
ROUNDS=${ROUNDS:-5}
FILTER=${FILTER:-none}      # none | comm
SETTLE=${SETTLE:-0.5}       # seconds to wait after a tracer says it is attached
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
BASE=${BASE:-}
PROG_SRC=$TOP/tests/progs/getppid_loop.c
TRACEFS=/sys/kernel/tracing
EVENT=syscalls:sys_enter_getppid

die() { echo "run.sh: $*" >&2; exit 2; }

# ---------------------------------------------------------------- checks
[[ $EUID -eq 0 ]] || die "must run as root (sudo bench/run.sh)"
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer (got '$N')"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer (got '$ROUNDS')"
[[ $FILTER == none || $FILTER == comm ]] || die "FILTER must be none or comm (got '$FILTER')"
missing=()
for t in gcc bpftrace perf getconf; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
[[ -x $LTAP ]] || missing+=("ltap ($LTAP; build it with 'make -C $TOP/build' or set LTAP=)")
[[ -z $BASE || -x $BASE ]] || missing+=("BASE ltap ($BASE)")
[[ -r $PROG_SRC ]] || missing+=("$PROG_SRC")
[[ -d $TRACEFS/instances ]] || missing+=("tracefs at $TRACEFS")
if ((${#missing[@]})); then
	for m in "${missing[@]}"; do echo "run.sh: missing: $m" >&2; done
	exit 2
fi
ulimit -l unlimited 2>/dev/null ||
	echo "run.sh: note: cannot raise ulimit -l (stays $(ulimit -l) KB); bpftrace needs it only on kernels < 5.11" >&2

# not while live tests run (tests/live/run.sh takes the same lock): they
# would disturb the timings and see the tracers' instances as leftovers
exec 9>/run/lock/ltap-live-tests.lock
flock 9

NCPU=$(nproc)
TMP=$(mktemp -d /tmp/ltap-bench.XXXXXX) || die "mktemp failed"
PIDS=()   # every background process this script started

cleanup() {
	local p i
	for p in "${PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		kill -INT "$p" 2>/dev/null
		for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || break; snooze 0.1; done
		kill -0 "$p" 2>/dev/null && kill -TERM "$p" 2>/dev/null
		for ((i = 0; i < 30; i++)); do kill -0 "$p" 2>/dev/null || break; snooze 0.1; done
		kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

. "$HERE/lib.sh"    # snooze, now_us, proc_cpu_ns, wait_line, settle_cpu, median

# kernel tracing state: nothing left behind by a tool run
list_instances() { (cd "$TRACEFS/instances" && ls -1A) 2>/dev/null | sort; }
INST0=$(list_instances)
check_clean() {
	local what=$1 inst new se i
	# an ltap's instance is removed by its guardian beside its exit: give it 2 s
	for ((i = 0; i < 200; i++)); do
		inst=$(list_instances)
		new=$(comm -13 <(printf '%s\n' "$INST0") <(printf '%s\n' "$inst") | sed '/^$/d')
		[[ -z $new ]] && break
		snooze 0.01
	done
	se=$(cat "$TRACEFS/set_event")
	if [[ -n $new || -n $se ]]; then
		echo "run.sh: kernel tracing state not clean after $what:" >&2
		[[ -n $new ]] && echo "  new instances: $(echo $new)" >&2
		[[ -n $se ]] && echo "  set_event: $(echo $se)" >&2
		exit 1
	fi
}

# ---------------------------------------------------------------- setup
W=$TMP/getppid_loop
gcc -O2 -o "$W" "$PROG_SRC" || die "cannot compile $PROG_SRC"
# a copy immune to rebuilds during the run: the binary and the libltap
# beside it (found first through LD_LIBRARY_PATH), when it has one
copy_ltap() {     # copy_ltap SRC DIR -> prints the path of the copy
	mkdir -p "$2" && cp "$1" "$2/ltap" || die "cannot copy $1"
	cp -P "$(dirname "$1")"/libltap.so* "$2/" 2>/dev/null
	echo "$2/ltap"
}
LT=$(copy_ltap "$LTAP" "$TMP/ltap.d")
LB=${BASE:+$(copy_ltap "$BASE" "$TMP/base.d")}
# run_lt BIN ARGS...: an ltap copy with its own libltap
run_lt() { LD_LIBRARY_PATH=$(dirname "$1") "$@"; }
# the same work for every tool: no predicate, or the same comm filter in the kernel
if [[ $FILTER == comm ]]; then
	LT_FILTER='"comm == \"getppid_loop\"", '
	BT_PRED='/comm == "getppid_loop"/ '
	PF_FILTER=(--filter 'comm == "getppid_loop"')
else
	LT_FILTER='' BT_PRED='' PF_FILTER=()
fi
{ echo 'local n = {}'; echo "probe(\"syscalls:sys_enter_getppid\", ${LT_FILTER}function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)"
  cat <<'EOF'
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)
EOF
} >"$TMP/count.lua"
BT_PROG="tracepoint:syscalls:sys_enter_getppid ${BT_PRED}{ @[comm] = count(); }"

echo "ltap benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $NCPU CPUs"
echo "  $(run_lt $LT --version 2>/dev/null || echo "ltap $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)$(git -C "$TOP" diff --quiet 2>/dev/null || echo '+dirty')")," \
	"$(bpftrace --version 2>&1 | head -1), $(perf --version 2>&1)"
echo "  workload: getppid_loop $N, $ROUNDS rounds, medians; kernel filter for every tool: $FILTER"
if [[ -n $INST0 ]]; then
	echo "  note: tracefs instances present before the run (not ours, left alone): $(echo $INST0)"
fi
echo

# the floor: a bare C reader of the same kind of ring (bench/floor.c)
FLOOR=$TMP/floor
gcc -O2 -I "$TOP/runtime" -o "$FLOOR" "$HERE/floor.c" || die "cannot compile bench/floor.c"
# ltap's other ways of counting: the C aggregate fed from Lua
{ echo 'local n = stats()'; echo "probe(\"syscalls:sys_enter_getppid\", ${LT_FILTER}function(e) n:inc(e.comm) end)"
  cat <<'EOF2'
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, type(v) == "table" and v.count or v) end end)
EOF2
} >"$TMP/count_stats.lua"
# the same handler in a shape ltap does not run in C (bindings/lower.c): a
# Lua call per event, into stats():inc
{ echo 'local n = stats()'; echo "probe(\"syscalls:sys_enter_getppid\", ${LT_FILTER}function(e) local c = e.comm n:inc(c) end)"
  echo 'finish(function() for k, v in sorted(n) do printf("%s %d\n", k, type(v) == "table" and v.count or v) end end)'
} >"$TMP/count_statscall.lua"

# and the aggregate fed in C, with no Lua per event (s:by)
{ echo 'local n = stats()'; echo "probe(\"syscalls:sys_enter_getppid\", ${LT_FILTER}n:by(\"comm\"))"
  echo 'finish(function() for k, v in sorted(n) do printf("%s %d\n", k, type(v) == "table" and v.count or v) end end)'
} >"$TMP/count_feed.lua"

# per-tool arrays of per-round values
declare -a base_w bt_w bt_cpu bt_cnt bt_lost bt_att pf_w pf_cpu pf_cnt pf_dup pf_lost pf_rec pf_att
declare -a lt_w lt_cpu lt_cnt lt_lost lt_miss lt_att
declare -a lb_w lb_cpu lb_cnt lb_lost lb_miss lb_att
declare -a lc_w lc_cpu lc_cnt lc_lost lc_miss lc_att
declare -a ls_w ls_cpu ls_cnt ls_lost ls_miss ls_att
declare -a lk_w lk_cpu lk_cnt lk_lost lk_miss lk_att
declare -a fl_w fl_cpu fl_cnt fl_lost fl_att
declare -a lf_w lf_cpu lf_cnt lf_lost lf_miss lf_att

run_workload() {     # -> WALL (ns)
	local a
	now_us; a=$NOW
	"$W" "$N"
	now_us
	WALL=$(((NOW - a) * 1000))
}

# measure_traced PID: the workload under a tracer that has settled -> WALL,
# and the tracer's own CPU spent on it -> CPU_NS
measure_traced() {
	local c0
	snooze "$SETTLE"
	proc_cpu_ns "$1"; c0=$CPU
	run_workload
	settle_cpu "$1"
	proc_cpu_ns "$1"
	CPU_NS=$((CPU - c0))
}

# ---------------------------------------------------------------- tools
round_base() {
	run_workload
	base_w+=("$WALL")
}

round_bpftrace() {
	local out=$TMP/bt.out err=$TMP/bt.err pid t0 cnt
	: >"$out"; : >"$err"
	now_us; t0=$NOW
	bpftrace -e "$BT_PROG" >"$out" 2>"$err" &
	pid=$!; PIDS+=("$pid")
	wait_line "$out" "Attaching" 60 "$pid" || { cat "$err" >&2; die "bpftrace did not attach"; }
	now_us; bt_att+=("$(((NOW - t0)))")
	measure_traced "$pid"
	bt_w+=("$WALL"); bt_cpu+=("$CPU_NS")
	kill -INT "$pid"; wait "$pid"
	cnt=$(awk -F': *' '/^@\[getppid_loop\]/ {print $2}' "$out")
	bt_cnt+=("${cnt:-0}")
	# bpftrace counts in a kernel map: nothing to lose; report lost as N - counted
	bt_lost+=("$((N - ${cnt:-0}))")
	check_clean bpftrace
}

round_perf() {
	local data=$TMP/perf.data err=$TMP/perf.err pid t0 cnt lost i nfd
	rm -f "$data"; : >"$err"
	now_us; t0=$NOW
	perf record -e "$EVENT" "${PF_FILTER[@]}" -a -o "$data" 2>"$err" >/dev/null &
	pid=$!; PIDS+=("$pid")
	# attached = one perf_event fd per CPU open
	for ((i = 0; i < 30000; i++)); do
		nfd=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c 'perf_event')
		((nfd >= NCPU)) && break
		kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; die "perf record died"; }
		snooze 0.002
	done
	now_us; pf_att+=("$(((NOW - t0)))")
	measure_traced "$pid"
	pf_w+=("$WALL"); pf_cpu+=("$CPU_NS")
	kill -INT "$pid"; wait "$pid"
	# the count is `perf script | grep -c getppid_loop`; --ns so that samples
	# written twice into perf.data (same tid, same ns time: seen with perf 6.1)
	# can be told apart from distinct events
	read -r cnt uniq < <(perf script --ns -i "$data" 2>/dev/null | grep getppid_loop |
		awk '{print $2, $4}' | sort | uniq -c | awk '{c += $1; u++} END {print c + 0, u + 0}')
	pf_cnt+=("$cnt"); pf_dup+=("$((cnt - uniq))")
	# perf's own loss accounting: the number of LOST records (ring full) in perf.data
	lost=$(perf report --stats -i "$data" 2>/dev/null |
		awk '/Aggregated stats/ {a=1} a && /LOST events:/ {l=$3} END {print l + 0}')
	pf_lost+=("$((N - uniq))"); pf_rec+=("$lost")
	rm -f "$data"
	check_clean perf
}

round_floor() {
	local out=$TMP/fl.out err=$TMP/fl.err pid t0 cnt
	: >"$out"; : >"$err"
	now_us; t0=$NOW
	"$FLOOR" "$EVENT" >"$out" 2>"$err" &
	pid=$!; PIDS+=("$pid")
	wait_line "$err" "attached" 30 "$pid" || { cat "$err" >&2; die "floor did not attach"; }
	now_us; fl_att+=("$(((NOW - t0)))")
	measure_traced "$pid"
	fl_w+=("$WALL"); fl_cpu+=("$CPU_NS")
	kill -INT "$pid"; wait "$pid" || echo "run.sh: floor exited $?" >&2
	cnt=$(awk '$1 == "getppid_loop" {print $2}' "$out")
	fl_cnt+=("${cnt:-0}")
	fl_lost+=("$(awk '$1 == "lost" {print $2}' "$out")")
	check_clean floor
}

round_ltap() {     # round_ltap BIN PREFIX [SCRIPT]: PREFIX lt (LTAP), lb (BASE), ls (stats), lc (BASE stats)
	local bin=$1 script=${3:-$TMP/count.lua} out=$TMP/lt.out err=$TMP/lt.err pid t0 cnt lost
	local -n w=${2}_w cpu=${2}_cpu cnts=${2}_cnt losts=${2}_lost miss=${2}_miss att=${2}_att
	: >"$out"; : >"$err"
	now_us; t0=$NOW
	# (env execs ltap: $! is ltap itself, whose CPU is measured)
	env LD_LIBRARY_PATH="$(dirname "$bin")" "$bin" -v "$script" >"$out" 2>"$err" &
	pid=$!; PIDS+=("$pid")
	wait_line "$err" "attached in" 30 "$pid" || { cat "$err" >&2; die "ltap did not attach"; }
	now_us; att+=("$(((NOW - t0)))")
	measure_traced "$pid"
	w+=("$WALL"); cpu+=("$CPU_NS")
	kill -INT "$pid"; wait "$pid" || echo "run.sh: ltap exited $?" >&2
	cnt=$(awk '$1 == "getppid_loop" {print $2}' "$out")
	cnts+=("${cnt:-0}")
	lost=$(sed -n 's/^ltap: lost \([0-9]*\) events.*/\1/p' "$err")
	losts+=("${lost:-0}"); miss+=("$((N - ${cnt:-0}))")
	grep -v -e '^ltap: attached in' -e '^ltap: .*the handler runs in C' -e '^ltap: lost' -e '^ltap: command' -e '^ltap: clock: ' -e '^ltap: probe' "$err" >&2
	check_clean ltap
}

for ((r = 1; r <= ROUNDS; r++)); do
	printf 'round %d/%d: baseline' "$r" "$ROUNDS"
	round_base
	printf ', bpftrace'; round_bpftrace
	printf ', perf'; round_perf
	printf ', floor'; round_floor
	printf ', ltap'; round_ltap "$LT" lt
	printf ', ltap stats()'; round_ltap "$LT" ls "$TMP/count_stats.lua"
	printf ', ltap stats() called'; round_ltap "$LT" lk "$TMP/count_statscall.lua"
	printf ', ltap s:by'; round_ltap "$LT" lf "$TMP/count_feed.lua"
	[[ -n $LB ]] && { printf ', ltap (BASE)'; round_ltap "$LB" lb; }
	[[ -n $LB ]] && { printf ', ltap stats() (BASE)'; round_ltap "$LB" lc "$TMP/count_stats.lua"; }
	printf '\n'
done

# ---------------------------------------------------------------- start-up
# ltap's own number: from the start of the run to the probes enabled (-v),
# after the script was loaded; the process start is in the external numbers.
declare -a lt_self lt_first bt_first
for ((r = 1; r <= ROUNDS; r++)); do
	run_lt "$LT" -v -d 1s "$TMP/count.lua" >/dev/null 2>"$TMP/att.err"
	v=$(sed -n 's/^ltap: attached in \([0-9.]*\) ms.*/\1/p' "$TMP/att.err")
	lt_self+=("${v:-nan}")
	check_clean "ltap -d 1s"
done

# time from launch to the first event of an already running workload being
# handled in user space (an upper bound of attach time: it adds the delivery
# latency, for ltap up to its 10 ms merge hold-back plus a wake-up)
first_event() {     # $1 = bpftrace|ltap -> FIRST (us)
	local out=$TMP/fe.out pid wpid t0 ok=0
	: >"$out"
	"$W" 100000000000 &
	wpid=$!; PIDS+=("$wpid")
	snooze 0.05
	now_us; t0=$NOW
	if [[ $1 == bpftrace ]]; then
		bpftrace -e 'tracepoint:syscalls:sys_enter_getppid /comm == "getppid_loop"/ { printf("hit\n"); exit(); }' >"$out" 2>/dev/null &
	else
		run_lt "$LT" -e 'probe("syscalls:sys_enter_getppid", function(e)
			if e.comm == "getppid_loop" then print("hit"); io.stdout:flush(); exit() end end)' >"$out" 2>/dev/null &
	fi
	pid=$!; PIDS+=("$pid")
	wait_line "$out" "hit" 60 "$pid" && ok=1
	now_us
	FIRST=$((NOW - t0)); ((ok)) || FIRST=nan
	wait "$pid" 2>/dev/null
	kill -TERM "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
	check_clean "$1 first event"
}
for ((r = 1; r <= ROUNDS; r++)); do
	first_event bpftrace; bt_first+=("$FIRST")
	first_event ltap; lt_first+=("$FIRST")
done

# ---------------------------------------------------------------- report
BW=$(median "${base_w[@]}")
# a cell: the value if every round agrees, else "median (min..max)"
cell() {
	local sorted
	sorted=($(printf '%s\n' "$@" | sort -g))
	if [[ ${sorted[0]} == "${sorted[-1]}" ]]; then echo "${sorted[0]}"
	else echo "$(median "$@") (${sorted[0]}..${sorted[-1]})"; fi
}
# (the table shows whole ns; the ratios below are of the unrounded
# medians: 17 / 14 is 1.21, 16.8 / 14.3 is 1.17)
row() {     # name "walls" "cpus"|- counted lost
	local name=$1 w=$2 c=$3 slow cpu
	w=$(median $w)
	slow=$(awk -v w="$w" -v b="$BW" -v n="$N" 'BEGIN {printf "%.3f", (w - b) / n}')
	if [[ $c == - ]]; then cpu=-; else
		cpu=$(awk -v c="$(median $c)" -v n="$N" 'BEGIN {printf "%.3f", c / n}')
	fi
	printf '| %-8s | %6.3f | %17.0f | %19s | %-28s | %-20s |\n' "$name" \
		"$(awk -v w="$w" 'BEGIN {print w / 1e9}')" "$slow" \
		"$([[ $cpu == - ]] && echo - || printf '%.0f' "$cpu")" "$4" "$5"
	eval "SLOW_$name=$slow; CPU_$name=$cpu"
}

echo
echo "results: N=$N events, medians of $ROUNDS rounds; slowdown = (wall - baseline wall) / N;"
echo "tracer CPU = the tracer process's CPU time in ns (its threads' /proc/PID/task/*/schedstat) during the workload and until it went idle, / N"
echo
echo "| tool     | wall s | slowdown ns/event | tracer CPU ns/event | events counted               | lost                 |"
echo "|----------|--------|-------------------|---------------------|------------------------------|----------------------|"
row none "${base_w[*]}" - - -
row bpftrace "${bt_w[*]}" "${bt_cpu[*]}" "$(cell "${bt_cnt[@]}")" "$(cell "${bt_lost[@]}")"
row perf "${pf_w[*]}" "${pf_cpu[*]}" "$(cell "${pf_cnt[@]}")" "$(cell "${pf_lost[@]}")"
row floor "${fl_w[*]}" "${fl_cpu[*]}" "$(cell "${fl_cnt[@]}")" "$(cell "${fl_lost[@]}")"
row ltap "${lt_w[*]}" "${lt_cpu[*]}" "$(cell "${lt_cnt[@]}")" "$(cell "${lt_lost[@]}")"
row stats "${ls_w[*]}" "${ls_cpu[*]}" "$(cell "${ls_cnt[@]}")" "$(cell "${ls_lost[@]}")"
row statcall "${lk_w[*]}" "${lk_cpu[*]}" "$(cell "${lk_cnt[@]}")" "$(cell "${lk_lost[@]}")"
row feed "${lf_w[*]}" "${lf_cpu[*]}" "$(cell "${lf_cnt[@]}")" "$(cell "${lf_lost[@]}")"
[[ -n $LB ]] && row base "${lb_w[*]}" "${lb_cpu[*]}" "$(cell "${lb_cnt[@]}")" "$(cell "${lb_lost[@]}")"
[[ -n $LB ]] && row basestat "${lc_w[*]}" "${lc_cpu[*]}" "$(cell "${lc_cnt[@]}")" "$(cell "${lc_lost[@]}")"
echo
echo "counted: bpftrace '@[getppid_loop]', perf 'perf script | grep -c getppid_loop', ltap 'getppid_loop <n>'."
echo "lost: bpftrace N - counted (it counts in a kernel map); perf N - distinct samples (see below);"
echo "ltap what it reports itself on stderr ('ltap: lost N events'; 0 when it prints no such line)."
echo
echo "per round:"
printf '  %-22s %s\n' "baseline wall ns" "${base_w[*]}"
printf '  %-22s %s\n' "bpftrace wall ns" "${bt_w[*]}" "bpftrace cpu ns" "${bt_cpu[*]}" "bpftrace counted" "${bt_cnt[*]}"
printf '  %-22s %s\n' "perf wall ns" "${pf_w[*]}" "perf cpu ns" "${pf_cpu[*]}" "perf counted" "${pf_cnt[*]}"
printf '  %-22s %s\n' "perf duplicate samples" "${pf_dup[*]}" "perf N - distinct" "${pf_lost[*]}" "perf LOST records" "${pf_rec[*]}"
printf '  %-22s %s\n' "ltap wall ns" "${lt_w[*]}" "ltap cpu ns" "${lt_cpu[*]}" "ltap counted" "${lt_cnt[*]}"
printf '  %-22s %s\n' "ltap lost (reported)" "${lt_lost[*]}" "ltap N - counted" "${lt_miss[*]}"
printf '  %-22s %s\n' "floor cpu ns" "${fl_cpu[*]}" "floor counted" "${fl_cnt[*]}" "floor lost" "${fl_lost[*]}"
printf '  %-22s %s\n' "stats() cpu ns" "${ls_cpu[*]}" "stats() counted" "${ls_cnt[*]}" "stats() lost (reported)" "${ls_lost[*]}"
printf '  %-22s %s\n' "stats() called cpu ns" "${lk_cpu[*]}" "stats() called counted" "${lk_cnt[*]}" "stats() called lost" "${lk_lost[*]}"
printf '  %-22s %s\n' "s:by cpu ns" "${lf_cpu[*]}" "s:by counted" "${lf_cnt[*]}" "s:by lost (reported)" "${lf_lost[*]}"
[[ -n $LB ]] && printf '  %-22s %s\n' "BASE wall ns" "${lb_w[*]}" "BASE cpu ns" "${lb_cpu[*]}" "BASE counted" "${lb_cnt[*]}"
[[ -n $LB ]] && printf '  %-22s %s\n' "BASE stats cpu ns" "${lc_cpu[*]}" "BASE stats counted" "${lc_cnt[*]}"
echo "  (perf duplicate samples: the same tid and ns timestamp present twice in perf.data; they"
echo "   inflate perf's grep count, so perf's lost is computed from distinct samples.)"
echo
ms() { awk -v v="$(median "$@")" 'BEGIN {printf "%.1f", v / 1000}'; }
r_bt=$(awk -v a="$SLOW_ltap" -v b="$SLOW_bpftrace" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}')
r_pf=$(awk -v a="$SLOW_ltap" -v b="$SLOW_perf" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}')
t_bt=$(awk -v a="$SLOW_ltap" -v c="$CPU_ltap" -v b="$SLOW_bpftrace" -v d="$CPU_bpftrace" 'BEGIN {if (b + d > 0) printf "%.2f", (a + c) / (b + d); else print "n/a"}')
echo "ratios: slowdown ltap/bpftrace = $r_bt, ltap/perf = $r_pf;" \
	"(slowdown + tracer CPU) ltap/bpftrace = $t_bt"
echo "tracer CPU against the floor's: ltap (Lua table) $(awk -v a="$CPU_ltap" -v b="$CPU_floor" 'BEGIN {printf "%.2f", a / b}')x," \
	"ltap stats():inc handler (run in C) $(awk -v a="$CPU_stats" -v b="$CPU_floor" 'BEGIN {printf "%.2f", a / b}')x," \
	"ltap stats():inc called from Lua $(awk -v a="$CPU_statcall" -v b="$CPU_floor" 'BEGIN {printf "%.2f", a / b}')x," \
	"ltap s:by (in C) $(awk -v a="$CPU_feed" -v b="$CPU_floor" 'BEGIN {printf "%.2f", a / b}')x;" \
	"(slowdown + tracer CPU) of s:by against bpftrace's: $(awk -v a="$SLOW_feed" -v c="$CPU_feed" -v b="$SLOW_bpftrace" -v d="$CPU_bpftrace" 'BEGIN {if (b + d > 0) printf "%.2f", (a + c) / (b + d); else print "n/a"}')x"
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
echo "stats():inc against the Lua table (tracer CPU): handler $(ratio_of "$CPU_stats" "$CPU_ltap")x," \
	"called from Lua $(ratio_of "$CPU_statcall" "$CPU_ltap")x;" \
	"called from Lua, per round: $(paste -d/ <(printf '%s\n' "${lk_cpu[@]}") <(printf '%s\n' "${lt_cpu[@]}") |
		awk -F/ '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $2}')"
echo "stats():inc handler against the floor (tracer CPU) per round: $(paste -d/ <(printf '%s\n' "${ls_cpu[@]}") <(printf '%s\n' "${fl_cpu[@]}") |
		awk -F/ '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $2}')"
echo "s:by against the floor (tracer CPU) per round: $(paste -d/ <(printf '%s\n' "${lf_cpu[@]}") <(printf '%s\n' "${fl_cpu[@]}") |
		awk -F/ '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $2}')"
if [[ -n $LB ]]; then
	echo "stats():inc against BASE's (tracer CPU): $(ratio_of "$CPU_stats" "$CPU_basestat")x"
	echo "ltap against BASE ($BASE): slowdown $(awk -v a="$SLOW_ltap" -v b="$SLOW_base" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}')x," \
		"tracer CPU $(awk -v a="$CPU_ltap" -v b="$CPU_base" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}')x"
fi
echo
echo "start-up, medians (ms):"
echo "  ltap      'attached in' (-v -d 1s, ltap's own clock, after script load): $(awk -v v="$(median "${lt_self[@]}")" 'BEGIN {printf "%.1f", v}')"
echo "  ltap      launch -> 'attached in' line seen on stderr:                   $(ms "${lt_att[@]}")"
echo "  ltap      launch -> first event of a running workload handled:           $(ms "${lt_first[@]}")"
echo "  bpftrace  launch -> 'Attaching 1 probe...' seen (printed before attach): $(ms "${bt_att[@]}")"
echo "  bpftrace  launch -> first event of a running workload printed:           $(ms "${bt_first[@]}")"
echo "  perf      launch -> one perf_event fd per CPU open:                      $(ms "${pf_att[@]}")"
echo
left=$(list_instances); [[ -n $left ]] && echo "tracefs instances now: $(echo $left) (same as before the run)"
echo "kernel tracing state checked clean after every tool run (no new instance, set_event empty)."

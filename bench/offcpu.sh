#!/usr/bin/env bash
# bench/offcpu.sh — the cost of an off-CPU profile: ltap offcpu (counted in
# C) against the same profile by a Lua script (two ways), perf record +
# perf script + awk, and bpftrace, system-wide on the same workload; all in
# one run, medians of ROUNDS rounds. Then the kernel's cost per switch of
# the two ways to see a -p/-c target's switches in (the tracefs instance's
# pid-filtered sched_switch, perf's context-switch records).
#
#   sudo bench/offcpu.sh                      5 s per tool, 3 rounds
#   sudo SECS=10 ROUNDS=5 bench/offcpu.sh
#   sudo LTAP=/path/to/ltap bench/offcpu.sh   another build (default build/ltap)
#
# The workload (the same for every tool and round): bench/pingpong.c, two
# threads handing a byte back and forth over two pipes, each blocking on a
# read until the other writes, both on CPU 0 (taskset: each handoff is one
# switch from one thread to the other, some 300,000 a second, not a trip
# through the idle task whose rate depends on where the scheduler put
# them), beside whatever else the machine runs.
#
# Per round, each tool profiles all CPUs for SECS while the workload runs:
#   ltap offcpu      `ltap offcpu -a -d SECS --folded F`: switches out with
#                    stacks, switches in, the stacks named once, the folded file
#   ltap lua keys    `ltap -a -d SECS offcpu-keys.lua`: the same in a script,
#                    a stack kept per block with counts:stack(), its time added
#                    with counts:add(KEY, N) (one Lua call per switch)
#   ltap lua folded  `offcpu-folded.lua`: the script as it had to be before
#                    counts:stack(), a folded string built per block (e:folded())
#   perf             `perf record -e sched:sched_switch -g -a -- sleep SECS`,
#                    `perf script | awk` computing the same off-CPU times
#   bpftrace         sched_switch with kernel and user stacks as map keys, the
#                    times summed in the kernel, printed at the end
# CPU: task-clock of the tool's own process (perf stat --no-inherit; for perf,
# record + script + awk). Context switches: /proc/stat's ctxt over the tool's
# run (every CPU), the denominator of "us per switch". bpftrace's work is
# mostly in the kernel, in the switching tasks' time: its own CPU is not
# its cost (its slowdown of the workload is shown instead, for everyone).
set -u
export LC_ALL=C
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
LOCK=/run/lock/ltap-live-tests.lock
BENCHLOCK=/run/lock/ltap-bench.lock
. "$HERE/lib.sh"

die() { echo "offcpu.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ -x $LTAP ]] || die "build first (cmake --build build): need $LTAP"
for t in gcc perf bpftrace awk; do command -v $t >/dev/null || die "$t is not installed"; done
W=$(mktemp -d /tmp/ltap-bench.XXXXXX) || die "mktemp failed"
trap 'kill $PP 2>/dev/null; rmdir /sys/kernel/tracing/instances/ltap-bench-$$ 2>/dev/null; rm -rf "$W"' EXIT
gcc -O2 -pthread -o $W/pingpong "$HERE/pingpong.c" || die "cannot compile pingpong.c"

# the Lua scripts: off-CPU time per stack, folded, in us (what ltap offcpu computes)
cat > $W/offcpu-keys.lua <<'LUA'
local counts, held, since = ltap.stackcount(), {}, {}
probe("sched:sched_switch", {stack = true, filter = "prev_state & 3"}, function(e)
  held[e.prev_pid], since[e.prev_pid] = counts:stack(e), e.time
end)
probe("sched:sched_switch", "next_pid != 0", function(e)
  local k = held[e.next_pid]
  if k then counts:add(k, e.time - since[e.next_pid]) held[e.next_pid] = nil end
end)
finish(function()
  local f = io.open(arg[1], "w")
  for s, ns in pairs(counts:folded()) do f:write(s, " ", ns // 1000, "\n") end
  f:close()
end)
LUA
cat > $W/offcpu-folded.lua <<'LUA'
local us, held, since = {}, {}, {}
probe("sched:sched_switch", {stack = true, filter = "prev_state & 3"}, function(e)
  held[e.prev_pid], since[e.prev_pid] = e:folded(), e.time
end)
probe("sched:sched_switch", "next_pid != 0", function(e)
  local k = held[e.next_pid]
  if k then us[k] = (us[k] or 0) + (e.time - since[e.next_pid]) // 1000 held[e.next_pid] = nil end
end)
finish(function()
  local f = io.open(arg[1], "w")
  for s, n in pairs(us) do f:write(s, " ", n, "\n") end
  f:close()
end)
LUA
# perf script's text: a sample's header line, its frames, a blank line
cat > $W/offcpu.awk <<'AWK'
/sched:sched_switch:/ {
  comm = $1; ts = $4; sub(/:$/, "", ts); ts = ts * 1e6
  match($0, /prev_pid=[0-9]+/); prev = substr($0, RSTART + 9, RLENGTH - 9)
  match($0, /prev_state=[^ ]+/); st = substr($0, RSTART + 11, RLENGTH - 11)
  match($0, /next_pid=[0-9]+/); next_ = substr($0, RSTART + 9, RLENGTH - 9)
  if (next_ in start) { t[stack[next_]] += ts - start[next_]; delete start[next_] }
  blocked = (st ~ /^[SD]/); key = comm; frames = ""; next
}
NF == 0 { if (blocked) { start[prev] = ts; stack[prev] = key frames } blocked = 0; next }
{ frames = ";" $2 frames }
END { for (s in t) printf "%s %d\n", s, t[s] }
AWK
cat > $W/offcpu.bt <<'BT'
tracepoint:sched:sched_switch
/args->prev_state & 3/
{
  @start[args->prev_pid] = nsecs;
  @ks[args->prev_pid] = kstack;
  @ust[args->prev_pid] = ustack;
  @cm[args->prev_pid] = comm;
}
tracepoint:sched:sched_switch
/@start[args->next_pid]/
{
  $t = args->next_pid;
  @us[@cm[$t], @ks[$t], @ust[$t]] = sum((nsecs - @start[$t]) / 1000);
  delete(@start[$t]); delete(@ks[$t]); delete(@ust[$t]); delete(@cm[$t]);
}
END { clear(@start); clear(@ks); clear(@ust); clear(@cm); }
BT

cpu() { awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$1"; }
stat1() { local o=$1; shift; perf stat --no-inherit -x, -e task-clock -o "$o" -- "$@"; }
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
per() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.3f", n ? 1000 * c / n : 0 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? a / b : 0 }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# mark: the workload's last report (trips so far, its time); rate: trips a
# second since the mark
mark() { MARK=$(tail -1 $W/pp.out); }
rate() { tail -1 $W/pp.out | awk -v m="$MARK" '{ split(m, a, " "); printf "%.0f", ($1 - a[1]) / (($2 - a[2]) / 1e9) }'; }

exec 8>$BENCHLOCK
flock 8
echo "machine: $(nproc) CPUs, load average $(load) at the start (a shared machine: others may be compiling);"
echo "  ltap $LTAP ($(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)), $(perf --version), bpftrace $(bpftrace --version | awk '{print $2}')"
taskset -c 0 $W/pingpong > $W/pp.out &
PP=$!
# its first report before the first mark (an empty mark measured round 1's
# "none" from the boot: 87 round trips a second)
for _ in $(seq 100); do [ -s $W/pp.out ] && break; snooze 0.05; done # poll
TOOLS=${TOOLS:-"none ltap_offcpu ltap_lua_keys ltap_lua_folded perf bpftrace"}
declare -A US SW RT MS
# run TOOL: one profile of SECS under the live-test lock; its CPU, the switches, the workload's rate
run() {
	local t=$1 c0 c1
	exec 9>$LOCK
	flock 9
	c0=$(ctxt)
	mark
	case $t in
	none) snooze $SECS ;;
	ltap_offcpu) stat1 $W/s "$LTAP" offcpu -a -d ${SECS}s --folded $W/$t.folded > /dev/null 2> $W/$t.err ;;
	ltap_lua_keys) stat1 $W/s "$LTAP" -a -d ${SECS}s $W/offcpu-keys.lua $W/$t.folded > /dev/null 2> $W/$t.err ;;
	ltap_lua_folded) stat1 $W/s "$LTAP" -a -d ${SECS}s $W/offcpu-folded.lua $W/$t.folded > /dev/null 2> $W/$t.err ;;
	perf)
		stat1 $W/s1 perf record -q -e sched:sched_switch -g -a -o $W/perf.data -- sleep $SECS 2> /dev/null
		c1=$(ctxt)
		RATE=$(rate)
		perf stat -x, -e task-clock -o $W/s2 -- bash -c "perf script -i $W/perf.data 2>/dev/null | awk -f $W/offcpu.awk > $W/$t.folded"
		;;
	bpftrace)
		stat1 $W/s bpftrace -e "$(cat $W/offcpu.bt) interval:s:$SECS { exit(); }" > $W/$t.folded 2> $W/$t.err ;;
	*) false ;;
	esac || { cat $W/$t.err; die "$t failed"; }
	# every tool named the workload's blocked stacks
	[[ $t == none ]] || grep -q pingpong $W/$t.folded || { cat $W/$t.err; die "$t: no pingpong stack in its output"; }
	[[ $t == perf ]] || { c1=$(ctxt); RATE=$(rate); }
	exec 9>&-
	SW[$t]=$((c1 - c0))
	if [[ $t == perf ]]; then
		MS[$t]=$(awk -v a=$(cpu $W/s1) -v b=$(cpu $W/s2) 'BEGIN { printf "%.1f", a + b }')
	elif [[ $t == none ]]; then
		MS[$t]=0
	else
		MS[$t]=$(cpu $W/s)
	fi
	US[$t]+=" $(per ${MS[$t]} ${SW[$t]})"
	RT[$t]+=" $RATE"
	printf "  %-16s %8s ms CPU, %8d switches, %6s us/switch, workload %s round trips/s\n" $t ${MS[$t]} ${SW[$t]} \
		$(per ${MS[$t]} ${SW[$t]}) $RATE
}
for ((r = 1; r <= ROUNDS; r++)); do
	echo "round $r"
	for t in $TOOLS; do run $t; done
done
echo
echo "off-CPU profile, all CPUs, $SECS s, medians of $ROUNDS rounds (the tool's own CPU / context switches)"
printf "%-18s %12s %20s\n" tool "us/switch" "workload trips/s"
for t in $TOOLS; do printf "%-18s %12s %20s\n" $t "$(median ${US[$t]})" "$(median ${RT[$t]})"; done
l=$(median ${US[ltap_offcpu]})
echo "ratio ltap lua (keys) / ltap offcpu: $(ratio $(median ${US[ltap_lua_keys]}) $l)"
echo "ratio ltap lua (folded strings) / ltap offcpu: $(ratio $(median ${US[ltap_lua_folded]}) $l)"
echo "ratio perf record + script + awk / ltap offcpu: $(ratio $(median ${US[perf]}) $l)"

# -p / -c: a target's switches in, the kernel's cost of each way, as the
# workload's slowdown (its round trips a second) with one of them on the
# workload's threads alone: the tracefs instance's sched_switch with its
# pid filter (prev or next a target), or perf's context-switch records of
# per-task events (perf record --switch-events -e dummy)
echo
echo "a -p target's switches in: the workload's round trips a second (medians of $ROUNDS, $SECS s each)"
T=/sys/kernel/tracing
declare -A MR
for ((r = 1; r <= ROUNDS; r++)); do
	exec 9>$LOCK
	flock 9
	mark; snooze $SECS; MR[none]+=" $(rate)"
	mkdir $T/instances/ltap-bench-$$
	I=$T/instances/ltap-bench-$$
	echo 1 > $I/options/event-fork
	for tid in $(ls /proc/$PP/task); do echo $tid >> $I/set_event_pid; done
	echo 1 > $I/events/sched/sched_switch/enable
	mark; snooze $SECS; MR[instance]+=" $(rate)"
	echo 0 > $I/events/sched/sched_switch/enable
	rmdir $I
	perf record -q --switch-events -e dummy -p $PP -o $W/sw.data -- sleep $((SECS + 1)) 2> /dev/null &
	pr=$!
	snooze 0.5 # perf attaching: its start-up is not the records' cost
	mark; snooze $SECS; MR[switch_records]+=" $(rate)"
	wait $pr
	exec 9>&-
done
for k in none instance switch_records; do printf "  %-16s %12s\n" $k "$(median ${MR[$k]})"; done
kill $PP

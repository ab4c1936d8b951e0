#!/usr/bin/env bash
# bench/profile.sh — the cost of a CPU profile with call chains, ltap against
# perf on the same workload, and of a flame graph, ltap against FlameGraph's
# Perl on the same input; all in one run, medians of ROUNDS rounds.
#
#   sudo FLAMEGRAPH=/path/to/FlameGraph bench/profile.sh     10 s at 999 Hz, 3 rounds
#   sudo SECS=5 HZ=499 ROUNDS=5 FLAMEGRAPH=... bench/profile.sh
#   sudo LTAP=/path/to/ltap ... bench/profile.sh             another build (default build/ltap)
#   sudo BASE=/path/to/other/ltap ... bench/profile.sh       a second build measured beside it in
#                                                            every round (before/after a change)
#   sudo MODE=c ... bench/profile.sh                         the workload alone (-c), not system-wide
#
# FLAMEGRAPH: a checkout of github.com/brendangregg/FlameGraph (its
# stackcollapse-perf.pl and flamegraph.pl; nothing of it is in this tree);
# without it the flame graph part is left out.
#
# The workload (the same for every tool and round): tests/progs/hot spinning
# on one CPU (a PIE with DWARF), and beside it a shell loop of short-lived
# processes (ls, cat), so the stacks span the kernel, libc, ld.so and
# processes that exit long before the end. MODE=a (the default): each tool
# profiles all CPUs while the workload runs (ltap profile -a, perf record
# -a), the profile people take; on a machine shared with other work it also
# samples whatever else runs, for both tools. MODE=c: each profiles the
# workload alone, started by the tool (ltap -c, perf record --); both then
# watch each of its processes with inherited per-task events, which wake
# the tool at every process's exit (see bench/README.md).
#
# Per round, CPU time (task-clock of the tool's own process, not of the
# workload it started: perf stat --no-inherit):
#   ltap profile   `ltap profile -F HZ -a -d SECS --folded F --svg S`: the
#                  whole run, live ring reading, symbols, folding, the report,
#                  the folded file and the SVG, start-up included (the kernel
#                  symbol cache made by a run before the rounds: docs/profiles.md)
#   perf record    `perf record -F HZ -a -g -o DATA -- sleep SECS`
#   perf script    `perf script -i DATA` (symbolizing and printing the stacks,
#                  what stackcollapse-perf.pl reads; no fold, no SVG)
# Then per sample (ltap: the samples of its folded file; perf: those perf
# script printed), and the ratios perf script / ltap, perf record + perf
# script / ltap; with BASE, the same for it and BASE / ltap.
#
# Flame graphs, on the last round's perf script text and on the folded file
# stackcollapse-perf.pl makes of it (CPU of the whole pipeline):
#   stackcollapse-perf.pl | flamegraph.pl   against  ltap flamegraph TEXT
#   flamegraph.pl FOLDED                    against  ltap flamegraph FOLDED
# (with BASE, it draws the same two and its SVGs are compared with ltap's)
set -u
export LC_ALL=C
SECS=${SECS:-10}
HZ=${HZ:-999}
ROUNDS=${ROUNDS:-3}
MODE=${MODE:-a}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
HOT=${HOT:-$TOP/build/tests/hot}
FG=${FLAMEGRAPH:-}
BASE=${BASE:-}
LOCK=/run/lock/ltap-live-tests.lock
. "$HERE/lib.sh"

die() { echo "profile.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ $MODE == a || $MODE == c ]] || die "MODE is a or c, not '$MODE'"
[[ -x $LTAP && -x $HOT ]] || die "build first (cmake --build build): need $LTAP and $HOT"
[[ -z $BASE || -x $BASE ]] || die "BASE=$BASE is not an executable"
command -v perf >/dev/null || die "perf is not installed"
if [[ -n $FG ]] && ! [[ -x $FG/stackcollapse-perf.pl && -x $FG/flamegraph.pl ]]; then
	die "FLAMEGRAPH=$FG has no stackcollapse-perf.pl and flamegraph.pl"
fi
W=$(mktemp -d /tmp/ltap-bench.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$W"' EXIT

cat > $W/work.sh <<EOF
#!/bin/bash
"$HOT" $SECS &
end=\$((SECONDS + $SECS))
while ((SECONDS < end)); do ls /usr/lib > /dev/null; cat /proc/self/stat > /dev/null; done
wait
EOF
chmod +x $W/work.sh

# cpu FILE: milliseconds of task-clock in a perf stat -x, output
cpu() { awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$1"; }
# stat OUT CMD...: CMD's own CPU (not its children's) into OUT
stat1() { local o=$1; shift; perf stat --no-inherit -x, -e task-clock -o "$o" -- "$@"; }
# stat_all OUT CMD...: CMD's CPU with its children's (a pipeline)
stat_all() { local o=$1; shift; perf stat -x, -e task-clock -o "$o" -- "$@"; }
per() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.2f", n ? 1000 * c / n : 0 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "machine: $(nproc) CPUs, load average $(load) at the start; ltap $LTAP${BASE:+; BASE $BASE}"
declare -a L_US P_US R_US L_MS P_MS R_MS L_N P_N B_US B_MS B_N
locked() { local rc; exec 9>$LOCK; flock 9; "$@"; rc=$?; exec 9>&-; return $rc; }
# live L TAG: one ltap profile by build L (under the lock), its files named TAG
live() {
	local l=$1 t=$2 wl
	if [[ $MODE == c ]]; then
		stat1 $W/$t.stat "$l" profile -F $HZ -c "$W/work.sh" --folded $W/$t.folded --svg $W/$t.svg --top 5 \
			> $W/$t.report 2> $W/$t.err || { cat $W/$t.err; die "$l profile failed"; }
	else
		$W/work.sh & wl=$!
		stat1 $W/$t.stat "$l" profile -F $HZ -a -d ${SECS}s --folded $W/$t.folded --svg $W/$t.svg --top 5 \
			> $W/$t.report 2> $W/$t.err || { kill $wl; cat $W/$t.err; die "$l profile failed"; }
		wait $wl
	fi
}
# ltap's kernel symbol cache (/run/ltap/kallsyms) made before the rounds,
# as perf record makes the copy of kallsyms perf script reads (~/.debug)
"$LTAP" profile -a -d 100ms > /dev/null 2>&1 || die "$LTAP profile failed"
for ((r = 1; r <= ROUNDS; r++)); do
	# live measurements under the live-test lock, one tool at a time, each its own hold
	locked live "$LTAP" ltap
	[[ -n $BASE ]] && locked live "$BASE" base
	exec 9>$LOCK
	flock 9
	if [[ $MODE == c ]]; then
		stat1 $W/rec.stat perf record -q -F $HZ -g -o $W/perf.data -- $W/work.sh 2> /dev/null || die "perf record failed"
	else
		$W/work.sh & wl=$!
		stat1 $W/rec.stat perf record -q -F $HZ -a -g -o $W/perf.data -- sleep $SECS 2> /dev/null || { kill $wl; die "perf record failed"; }
		wait $wl
	fi
	exec 9>&-
	stat_all $W/script.stat perf script -i $W/perf.data > $W/perf.script 2> /dev/null || die "perf script failed"
	L_N[r]=$(awk '{ s += $NF } END { print s + 0 }' $W/ltap.folded)
	P_N[r]=$(grep -c '^$' $W/perf.script)
	L_MS[r]=$(cpu $W/ltap.stat); R_MS[r]=$(cpu $W/rec.stat); P_MS[r]=$(cpu $W/script.stat)
	L_US[r]=$(per ${L_MS[r]} ${L_N[r]}); P_US[r]=$(per ${P_MS[r]} ${P_N[r]}); R_US[r]=$(per ${R_MS[r]} ${P_N[r]})
	printf "round %d: ltap %s ms / %s samples = %s us; perf script %s ms / %s = %s us; perf record %s ms = %s us\n" \
		$r ${L_MS[r]} ${L_N[r]} ${L_US[r]} ${P_MS[r]} ${P_N[r]} ${P_US[r]} ${R_MS[r]} ${R_US[r]}
	if [[ -n $BASE ]]; then
		B_N[r]=$(awk '{ s += $NF } END { print s + 0 }' $W/base.folded); B_MS[r]=$(cpu $W/base.stat)
		B_US[r]=$(per ${B_MS[r]} ${B_N[r]})
		printf "         BASE %s ms / %s samples = %s us\n" ${B_MS[r]} ${B_N[r]} ${B_US[r]}
	fi
done
lu=$(median "${L_US[@]:1}"); pu=$(median "${P_US[@]:1}"); ru=$(median "${R_US[@]:1}")
echo
echo "profile ($( [[ $MODE == a ]] && echo "all CPUs" || echo "the workload alone")), $SECS s at $HZ Hz, medians of $ROUNDS rounds (CPU of the tool's own process)"
printf "%-34s %10s %10s %12s\n" tool samples "cpu ms" "us/sample"
printf "%-34s %10s %10s %12s\n" "ltap profile (folded + svg)" "$(median "${L_N[@]:1}")" "$(median "${L_MS[@]:1}")" "$lu"
[[ -n $BASE ]] && printf "%-34s %10s %10s %12s\n" "BASE profile (folded + svg)" "$(median "${B_N[@]:1}")" "$(median "${B_MS[@]:1}")" "$(median "${B_US[@]:1}")"
printf "%-34s %10s %10s %12s\n" "perf script" "$(median "${P_N[@]:1}")" "$(median "${P_MS[@]:1}")" "$pu"
printf "%-34s %10s %10s %12s\n" "perf record -g" "" "$(median "${R_MS[@]:1}")" "$ru"
echo "ratio perf script / ltap (cpu per sample): $(ratio $pu $lu)"
echo "ratio perf record + perf script / ltap (cpu per sample): $(ratio "$(awk -v a=$pu -v b=$ru 'BEGIN { print a + b }')" $lu)"
if [[ -n $BASE ]]; then
	bu=$(median "${B_US[@]:1}")
	echo "ratio perf script / BASE (cpu per sample): $(ratio $pu $bu)"
	echo "ratio BASE / ltap (cpu per sample): $(ratio $bu $lu)"
	echo "us/sample, each round (min..max): ltap $(printf '%s\n' "${L_US[@]:1}" | sort -n | sed -n '1p;$p' | paste -sd' ' | sed 's/ /../'), BASE $(printf '%s\n' "${B_US[@]:1}" | sort -n | sed -n '1p;$p' | paste -sd' ' | sed 's/ /../'), perf script $(printf '%s\n' "${P_US[@]:1}" | sort -n | sed -n '1p;$p' | paste -sd' ' | sed 's/ /../')"
fi
echo "ltap's top rows (last round):"; sed -n '6,8p' $W/ltap.report

if [[ -z $FG ]]; then
	echo "flame graphs: left out (FLAMEGRAPH= a FlameGraph checkout)"
	echo "machine load average at the end: $(load)"
	exit 0
fi
# the same inputs for both: the last perf script text, and its fold by the Perl
"$FG/stackcollapse-perf.pl" $W/perf.script > $W/perf.folded
declare -a A B C D E F
for ((r = 1; r <= ROUNDS; r++)); do
	stat_all $W/a.stat sh -c "'$FG/stackcollapse-perf.pl' '$W/perf.script' | '$FG/flamegraph.pl' > '$W/pl1.svg'"
	stat_all $W/b.stat "$LTAP" flamegraph $W/perf.script $W/lt1.svg 2> /dev/null
	stat_all $W/c.stat "$FG/flamegraph.pl" $W/perf.folded > $W/pl2.svg
	stat_all $W/d.stat "$LTAP" flamegraph $W/perf.folded $W/lt2.svg 2> /dev/null
	A[r]=$(cpu $W/a.stat); B[r]=$(cpu $W/b.stat); C[r]=$(cpu $W/c.stat); D[r]=$(cpu $W/d.stat)
	if [[ -n $BASE ]]; then
		stat_all $W/e.stat "$BASE" flamegraph $W/perf.script $W/bs1.svg 2> /dev/null
		stat_all $W/f.stat "$BASE" flamegraph $W/perf.folded $W/bs2.svg 2> /dev/null
		E[r]=$(cpu $W/e.stat); F[r]=$(cpu $W/f.stat)
	fi
done
a=$(median "${A[@]:1}"); b=$(median "${B[@]:1}"); c=$(median "${C[@]:1}"); d=$(median "${D[@]:1}")
echo
echo "flame graphs, medians of $ROUNDS rounds: perf script text $(wc -l < $W/perf.script) lines ($(du -k $W/perf.script | cut -f1) KB), folded $(wc -l < $W/perf.folded) stacks"
printf "%-46s %10s %10s %8s\n" input "Perl ms" "ltap ms" ratio
printf "%-46s %10s %10s %8s\n" "perf script text (stackcollapse | flamegraph)" $a $b "$(ratio $a $b)"
printf "%-46s %10s %10s %8s\n" "folded file (flamegraph.pl)" $c $d "$(ratio $c $d)"
if [[ -n $BASE ]]; then
	e=$(median "${E[@]:1}"); f=$(median "${F[@]:1}")
	printf "%-46s %10s %10s %8s\n" "BASE on perf script text" $a $e "$(ratio $a $e)"
	printf "%-46s %10s %10s %8s\n" "BASE on folded file" $c $f "$(ratio $c $f)"
	same() { cmp -s "$1" "$2" && echo identical || echo DIFFERENT; }
	echo "SVGs of ltap and BASE: perf script text $(same $W/lt1.svg $W/bs1.svg), folded $(same $W/lt2.svg $W/bs2.svg)"
fi
printf "frames drawn: Perl %s and %s, ltap %s and %s\n" "$(grep -c '^<g >' $W/pl1.svg)" "$(grep -c '^<g >' $W/pl2.svg)" \
	"$(grep -c 'data-depth' $W/lt1.svg)" "$(grep -c 'data-depth' $W/lt2.svg)"
echo "machine load average at the end: $(load)"

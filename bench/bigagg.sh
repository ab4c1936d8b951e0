#!/usr/bin/env bash
# bench/bigagg.sh: aggregates of many keys (issue 29), ltap beside Python in
# the same run: the top 10, the whole report to /dev/null, the peak RSS of
# each against the aggregate's own memory, and the cost of an add at each
# size. bench/bigagg.lua is ltap's side (stats(), and a plain Lua table),
# bench/bigagg.py Python's (a dict: heapq.nlargest, heapq.nsmallest in
# ltap's order, the same table printed, a plainer sort+print). Keys with one
# part ("p" .. h(i)) and with two (comm, pid). No kernel is touched; the
# bench and live-test locks are held so that nothing else measures meanwhile.
#
#   bench/bigagg.sh                         KEYS="10000 100000 1000000" ROUNDS=3 (medians)
#   OLD=/tmp/ltap-main bench/bigagg.sh      also an older ltap (one round of it: OLD_ROUNDS)
#   LTAP=/path/to/ltap bench/bigagg.sh      default: build/ltap
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
OLD=${OLD:-}
KEYS=${KEYS:-"10000 100000 1000000"}
ROUNDS=${ROUNDS:-3}
OLD_ROUNDS=${OLD_ROUNDS:-1}
die() { echo "bigagg.sh: $*" >&2; exit 2; }
command -v python3 >/dev/null || die "missing: python3"
[[ -x $LTAP ]] || die "missing $LTAP (build first)"
[[ -z $OLD || -x $OLD ]] || die "missing $OLD"
. "$HERE/lib.sh"
exec 8>/run/lock/ltap-bench.lock
flock 8
exec 9>/run/lock/ltap-live-tests.lock
flock 9
TMP=$(mktemp -d /tmp/ltap-bigagg.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# one run's RESULT line (its report goes to /dev/null)
lt() { local bin=$1; shift; "$bin" "$HERE/bigagg.lua" "$@" 2>&1 >/dev/null | grep '^RESULT' || die "ltap $* failed"; }
py() { python3 "$HERE/bigagg.py" "$@" 2>&1 >/dev/null | grep '^RESULT' || die "python $* failed"; }
# field NAME LINE...: the value of NAME=
field() { local n=$1; shift; local l=" $*"; l=${l##* $n=}; [[ $l == " $*" ]] && { echo nan; return; }; echo "${l%% *}"; }
# med NAME LINES...: the median of NAME over the lines (one per round, \n-separated)
med() { local n=$1 v=(); while IFS= read -r l; do [[ -n $l ]] && v+=("$(field "$n" "$l")"); done <<<"$2"; median "${v[@]}"; }
rounds() { local r out=""; for ((r = 0; r < $1; r++)); do out+="$("${@:2}")"$'\n'; done; printf '%s' "$out"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "ltap: $LTAP${OLD:+, old: $OLD}; python3 $(python3 -c 'import sys; print(sys.version.split()[0])'); $ROUNDS rounds, medians; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) (a shared machine)"

# like with like: ltap's report and Python's table are the same bytes
for p in 1 2; do
	"$LTAP" "$HERE/bigagg.lua" report 10000 $p >$TMP/lt.out 2>/dev/null
	python3 "$HERE/bigagg.py" report 10000 $p >$TMP/py.out 2>/dev/null
	cmp -s $TMP/lt.out $TMP/py.out || die "report of 10000 keys, $p part(s): ltap and Python printed different tables"
done
echo "report of 10000 keys: ltap's and Python's tables are the same bytes (1 and 2 parts)"

echo
echo "## top 10 and the whole report (CPU seconds); peak RSS against the aggregate's memory"
printf '%-8s %-5s %-26s %9s %9s %10s %10s %9s\n' keys parts tool "top10 s" "report s" "peak MB" "agg MB" "peak/agg"
ratios=""
for k in $KEYS; do
	for p in 1 2; do
		new=$(rounds $ROUNDS lt "$LTAP" report $k $p)
		pyr=$(rounds $ROUNDS py report $k $p)
		agg=$(med agg_bytes "$new")
		peak=$(med report_peak_kb "$new")
		printf '%-8s %-5s %-26s %9s %9s %10s %10s %9s\n' $k $p "ltap stats()" "$(med top10_s "$new")" "$(med report_s "$new")" \
			"$(mb $peak)" "$(mb $((${agg%.*} / 1024)))" "$(awk -v a=$peak -v b=$agg 'BEGIN { printf "%.2f", a * 1024 / b }')"
		if [[ $p == 1 ]]; then
			tab=$(rounds $ROUNDS lt "$LTAP" report $k $p table)
			tagg=$(($(med rss_built_kb "$tab") - $(med rss_base_kb "$tab")))
			printf '%-8s %-5s %-26s %9s %9s %10s %10s %9s\n' $k $p "ltap Lua table" "$(med top10_s "$tab")" "$(med report_s "$tab")" \
				"$(mb $(med report_peak_kb "$tab"))" "$(mb $tagg)" "$(awk -v a=$(med report_peak_kb "$tab") -v b=$tagg 'BEGIN { printf "%.2f", a / b }')"
		fi
		if [[ -n $OLD ]]; then
			old=$(rounds $OLD_ROUNDS lt "$OLD" report $k $p)
			oagg=$(($(med rss_built_kb "$old") - $(med rss_base_kb "$old")))
			printf '%-8s %-5s %-26s %9s %9s %10s %10s %9s\n' $k $p "old ltap stats()" "$(med top10_s "$old")" "$(med report_s "$old")" \
				"$(mb $(med report_peak_kb "$old"))" "$(mb $oagg)" "$(awk -v a=$(med report_peak_kb "$old") -v b=$oagg 'BEGIN { printf "%.2f", a / b }')"
		fi
		pagg=$(($(med rss_built_kb "$pyr") - $(med rss_base_kb "$pyr")))
		printf '%-8s %-5s %-26s %9s %9s %10s %10s %9s\n' $k $p "python dict" "$(med top10_s "$pyr")" "$(med report_s "$pyr")" \
			"$(mb $(med report_peak_kb "$pyr"))" "$(mb $pagg)" "$(awk -v a=$(med report_peak_kb "$pyr") -v b=$pagg 'BEGIN { printf "%.2f", a / b }')"
		printf '%-8s %-5s %-26s %9s %9s\n' $k $p "python nlargest/sort+print" "$(med nlargest_s "$pyr")" "$(med sortprint_s "$pyr")"
		ratios+=$(awk -v k=$k -v p=$p -v t=$(med top10_s "$new") -v r=$(med report_s "$new") -v nl=$(med nlargest_s "$pyr") \
			-v ns=$(med top10_s "$pyr") -v pr=$(med report_s "$pyr") -v sp=$(med sortprint_s "$pyr") 'BEGIN {
			printf "%-8s %-5s top10 ltap/nlargest %.2f  ltap/nsmallest %.2f   report ltap/same table %.2f  ltap/sort+print %.2f\n",
				k, p, t / nl, t / ns, r / pr, r / sp }')$'\n'
	done
done
echo
echo "ratios to Python (below 1: ltap takes less):"
printf '%s' "$ratios"

echo
echo "## one add (ns): the first of each key, then 4 passes in a scattered order"
printf '%-8s %-5s %-18s %10s %10s\n' keys parts tool "insert ns" "update ns"
for k in $KEYS; do
	for p in 1 2; do
		for tool in "ltap stats()" "ltap Lua table" "old ltap stats()" "python dict"; do
			case $tool in
			"ltap stats()") r=$(rounds $ROUNDS lt "$LTAP" add $k $p) ;;
			"ltap Lua table") r=$(rounds $ROUNDS lt "$LTAP" add $k $p table) ;;
			"old ltap stats()") [[ -n $OLD ]] || continue; r=$(rounds $ROUNDS lt "$OLD" add $k $p) ;;
			"python dict") r=$(rounds $ROUNDS py add $k $p) ;;
			esac
			printf '%-8s %-5s %-18s %10s %10s\n' $k $p "$tool" "$(med insert_ns "$r")" "$(med update_ns "$r")"
		done
	done
done

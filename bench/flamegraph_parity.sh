#!/bin/bash
# flamegraph_parity.sh FLAMEGRAPH_DIR: ltap flamegraph against FlameGraph's
# own test inputs, side by side with its Perl (a dev run, not a test: the
# suite cannot fetch FlameGraph; its own inputs for each difference found
# are in tests/data/perf-script-*.txt, checked by tests/browser/t_flamegraph.sh).
#
# For every perf script text in FLAMEGRAPH_DIR/test/ and every option of
# FlameGraph's test.sh (--pid --tid --kernel --jit --all --addrs) and none:
#   folded: `ltap flamegraph --folded` against `stackcollapse-perf.pl`,
#           byte for byte; where they differ, against the Perl given the
#           file with a blank line after it (the Perl drops a last sample
#           that no blank line follows; ltap keeps it: docs/flamegraphs.md), counted apart;
#   svg:    the frames of `ltap flamegraph --hash` of the perf script text
#           against those of `flamegraph.pl --hash` of the Perl's folded
#           lines (tests/browser/svgframes.py: tooltip, rect, colour,
#           label): each pipeline whole. With --kernel and --all, where
#           ltap's hot palette colours kernel frames orange (docs/flamegraphs.md), the
#           same with --colors java, whose colours are flamegraph.pl's;
#           and ltap's graph of the Perl's folded lines (the folded reader
#           and the drawing alone, as `stackcollapse-perf.pl | ltap
#           flamegraph` runs) against flamegraph.pl's of the same lines.
# Prints one line per case and the totals.
#
#   git clone FlameGraph somewhere, then: bench/flamegraph_parity.sh /path/to/FlameGraph
#   LTAP=build/ltap (default)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FG=${1:?usage: flamegraph_parity.sh FLAMEGRAPH_DIR}
LTAP=${LTAP:-$TOP/build/ltap}
FRAMES=$TOP/tests/browser/svgframes.py
[[ -x $LTAP && -f $FG/stackcollapse-perf.pl && -d $FG/test ]] || { echo "need $LTAP and FlameGraph's checkout" >&2; exit 2; }
TMP=$(mktemp -d /tmp/ltap-fgparity.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
same=0 lastonly=0 differ=0 svgsame=0 svgdiffer=0 drawsame=0 drawdiffer=0 cases=0 opt=

# frames PERL_FOLDED LTAP_INPUT OPTS...: the frames of flamegraph.pl on
# the Perl's folded lines and of ltap flamegraph on its own input, compared
# (no height limit: ltap's --maxheight would fold deep graphs)
frames() {
	local pf=$1 in=$2; shift 2
	perl "$FG/flamegraph.pl" "$@" "$pf" > "$TMP/perl.svg" 2> /dev/null
	"$LTAP" flamegraph --maxheight 0 "$@" $opt "$in" "$TMP/ltap.svg" 2> /dev/null
	python3 "$FRAMES" "$TMP/perl.svg" > "$TMP/pf"
	python3 "$FRAMES" "$TMP/ltap.svg" > "$TMP/lf"
	cmp -s "$TMP/pf" "$TMP/lf"
}

for f in "$FG"/test/*.txt; do
	name=$(basename "$f" .txt)
	{ cat "$f"; echo; } > "$TMP/blank.txt"
	for opt in "" --pid --tid --kernel --jit --all --addrs; do
		cases=$((cases + 1))
		what="$name ${opt:-(none)}"
		perl "$FG/stackcollapse-perf.pl" $opt "$f" > "$TMP/perl.folded" 2> /dev/null
		"$LTAP" flamegraph $opt --folded "$TMP/ltap.folded" "$f" 2> "$TMP/err"
		rc=$?
		if [[ $rc != 0 ]]; then
			echo "FAILED  $what: exit $rc: $(head -2 "$TMP/err" | tr '\n' ' ')"
			differ=$((differ + 1)); svgdiffer=$((svgdiffer + 1))
			continue
		fi
		in=$f
		if cmp -s "$TMP/perl.folded" "$TMP/ltap.folded"; then
			same=$((same + 1)); fold=same
		else
			# the Perl drops the last sample when no blank line follows it:
			# given one, does it fold what ltap folded?
			perl "$FG/stackcollapse-perf.pl" $opt "$TMP/blank.txt" > "$TMP/perl.folded" 2> /dev/null
			if cmp -s "$TMP/perl.folded" "$TMP/ltap.folded"; then
				lastonly=$((lastonly + 1)); fold="same, the last sample kept (the Perl's with a blank line after it)"
			else
				differ=$((differ + 1)); fold="DIFFERS: $(diff "$TMP/perl.folded" "$TMP/ltap.folded" | head -3 | cut -c1-200 | tr '\n' ' ')"
			fi
		fi
		if frames "$TMP/perl.folded" "$in" --hash; then
			svgsame=$((svgsame + 1)); svg="svg frames same ($(($(wc -l < "$TMP/pf") - 1)))"
		elif [[ $opt == --kernel || $opt == --all ]] && diff "$TMP/pf" "$TMP/lf" | grep -q '^[<>]' &&
			frames "$TMP/perl.folded" "$in" --hash --colors java; then
			# ltap's hot palette colours _[k] frames orange (docs/flamegraphs.md), flamegraph.pl's not
			svgsame=$((svgsame + 1)); svg="svg frames same with --colors java ($(($(wc -l < "$TMP/pf") - 1)); hot: kernel frames orange)"
		else
			svgdiffer=$((svgdiffer + 1)); svg="svg DIFFERS: $(diff "$TMP/pf" "$TMP/lf" | head -3 | cut -c1-200 | tr '\n' ' ')"
		fi
		# the drawing alone: ltap's graph of the Perl's folded lines
		in=$TMP/perl.folded
		if frames "$TMP/perl.folded" "$in" --hash || { [[ $opt == --kernel || $opt == --all ]] &&
			frames "$TMP/perl.folded" "$in" --hash --colors java; }; then
			drawsame=$((drawsame + 1)); draw="drawn from the Perl's lines: same"
		else
			drawdiffer=$((drawdiffer + 1)); draw="drawn from the Perl's lines: DIFFERS: $(diff "$TMP/pf" "$TMP/lf" | head -3 | cut -c1-200 | tr '\n' ' ')"
		fi
		echo "$what: folded $fold; $svg; $draw"
	done
done
echo "$cases cases: folded the same $same, the same with the last sample the Perl drops $lastonly, different $differ;" \
	"svg frames the same $svgsame, different $svgdiffer; drawn from the Perl's folded lines the same $drawsame, different $drawdiffer"

#!/usr/bin/env bash
# bench/replay_text.sh: replay speed of trace / trace_pipe text, lines per
# second, against the kernel's Perl trace-pagealloc-postprocess.pl on the
# same file (from Debian's linux-doc-6.1, as the tests use it).
#   bench/replay_text.sh            REPEAT=320 copies of tests/data/pagealloc-live.txt (~1M lines)
# The capture has the irq-flags column, which the Perl original cannot read
# (it skips every line, slowly); it is also run on the file rewritten into
# the variant it reads (tests/live/pagealloc_rewrite.py), the fair race.
set -u
export LC_ALL=C
REPEAT=${REPEAT:-320}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
die() { echo "replay_text.sh: $*" >&2; exit 2; }
[[ -x $LTAP ]] || die "missing $LTAP (build first)"
PL=$(ls /usr/share/doc/linux-doc-*/Documentation/trace/postprocess/trace-pagealloc-postprocess.pl.gz 2>/dev/null | head -1)
[[ -n $PL ]] || die "missing the Perl original (apt-get install linux-doc-6.1)"
TMP=$(mktemp -d /tmp/ltap-tbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
zcat "$PL" > $TMP/original.pl
grep -v '^#' $TOP/tests/data/pagealloc-live.txt > $TMP/body.txt
for _ in $(seq "$REPEAT"); do cat $TMP/body.txt; done > $TMP/trace.txt
python3 $TOP/tests/live/pagealloc_rewrite.py $TMP/trace.txt > $TMP/rewritten.txt
lines=$(wc -l < $TMP/trace.txt)
cat > $TMP/count.lua <<'LUA'
local n = {}
probe("*:*", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)
LUA
# the original reads debugfs formats when it can (and then fails on them)
original() { unshare -m sh -c "mount -t tmpfs none /sys/kernel/debug 2>/dev/null; perl $TMP/original.pl" < "$1"; }
secs() { local t0=$EPOCHREALTIME; "$@" > $TMP/out 2>/dev/null; local t1=$EPOCHREALTIME; awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b - a}'; }
best() { local b=999999 t; for _ in 1 2 3; do t=$(secs "$@"); b=$(awk -v a=$b -v t=$t 'BEGIN{print (t < a) ? t : a}'); done; echo $b; }
count=$(best "$LTAP" --input $TMP/trace.txt $TMP/count.lua)
[[ $(awk '{s += $2} END {print s}' $TMP/out) == "$lines" ]] || die "the counting script did not count every line"
port=$(best "$LTAP" --input $TMP/trace.txt pagealloc-postprocess)
port_rw=$(best "$LTAP" --input $TMP/rewritten.txt pagealloc-postprocess)
port_lua=$(best "$LTAP" --input $TMP/rewritten.txt pagealloc-postprocess --read-procstat)
filt=$(best "$LTAP" --input $TMP/trace.txt -e 'n = 0 probe("kmem:mm_page_alloc", "order > 0 || gfp_flags & 0x100", function(e) n = n + 1 end)')
pl_raw=$(best original $TMP/trace.txt)
pl_rw=$(best original $TMP/rewritten.txt)
awk -v n=$lines -v c=$count -v p=$port -v prw=$port_rw -v pl=$port_lua -v f=$filt -v r=$pl_raw -v w=$pl_rw -v size=$(stat -c %s $TMP/trace.txt) 'BEGIN {
  printf "text trace: %d lines, %.1f MB (irq-flags column); best of 3 runs\n", n, size / 1e6
  printf "%-52s %7.3f s %11.0f lines/s\n", "ltap --input, Lua count per comm (every event)", c, n / c
  printf "%-52s %7.3f s %11.0f lines/s\n", "ltap --input, typed fields + user-space filter", f, n / f
  printf "%-52s %7.3f s %11.0f lines/s\n", "ltap --input pagealloc-postprocess", p, n / p
  printf "%-52s %7.3f s %11.0f lines/s\n", "ltap --input pagealloc-postprocess, rewritten", prw, n / prw
  printf "%-52s %7.3f s %11.0f lines/s\n", "  the same, every event to Lua handlers (--read-procstat)", pl, n / pl
  printf "%-52s %7.3f s %11.0f lines/s\n", "Perl original, same file (reads no line of it)", r, n / r
  printf "%-52s %7.3f s %11.0f lines/s\n", "Perl original, rewritten into its variant", w, n / w
  printf "ratio Perl (rewritten) / ltap count: %.1fx; / ltap pagealloc-postprocess: %.1fx\n", w / c, w / p
  printf "ratio on the rewritten file (the variant the original reads): Perl / ltap pagealloc-postprocess %.1fx (its Lua-handler path %.1fx)\n", w / prw, w / pl
  printf "ratio Perl (same file) / ltap count: %.1fx; / ltap pagealloc-postprocess: %.1fx\n", r / c, r / p
}'

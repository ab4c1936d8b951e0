#!/usr/bin/env bash
# bench/replay.sh: replay speed of a trace.dat, events per second through a
# counting script, against trace-cmd report on the same file; then a
# recording of page-allocation events through ltap's pagealloc-postprocess
# against the kernel's Perl original reading trace-cmd report's text.
#   sudo bench/replay.sh           records N=2000000 getppid events and
#                                  PAGES=400000 pages touched first
set -u
export LC_ALL=C
N=${N:-2000000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
PROG=$TOP/build/tests/getppid_loop
die() { echo "replay.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
command -v trace-cmd >/dev/null || die "missing: trace-cmd"
[[ -x $LTAP && -x $PROG ]] || die "missing $LTAP or $PROG (build first)"
exec 9>/run/lock/ltap-live-tests.lock
flock 9
TMP=$(mktemp -d /tmp/ltap-rbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cat > $TMP/count.lua <<'LUA'
local n = {}
probe("syscalls:sys_enter_getppid", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)
LUA
"$LTAP" --record $TMP/t.dat -c "$PROG $N" $TMP/count.lua > $TMP/live.out 2>/dev/null || die "recording failed"
events=$(trace-cmd report $TMP/t.dat 2>/dev/null | grep -c sys_enter_getppid)
secs() { local t0=$EPOCHREALTIME; "$@" > $TMP/out 2>/dev/null; local t1=$EPOCHREALTIME; awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b - a}'; }
best() { local b=999999 t; for _ in 1 2 3; do t=$(secs "$@"); b=$(awk -v a=$b -v t=$t 'BEGIN{print (t < a) ? t : a}'); done; echo $b; }
lt=$(best "$LTAP" --input $TMP/t.dat $TMP/count.lua)
cmp -s $TMP/out $TMP/live.out || die "replay output differs from the live run"
tc=$(best trace-cmd report $TMP/t.dat)
awk -v n=$events -v lt=$lt -v tc=$tc -v size=$(stat -c %s $TMP/t.dat) 'BEGIN {
  printf "trace.dat: %d events, %.1f MB; best of 3 runs\n", n, size / 1e6
  printf "%-34s %8.3f s %12.0f events/s\n", "ltap --input (Lua count per comm)", lt, n / lt
  printf "%-34s %8.3f s %12.0f events/s\n", "trace-cmd report > /dev/null", tc, n / tc
  printf "ratio ltap/trace-cmd (events/s): %.1fx\n", tc / lt
}'

PL=$(ls /usr/share/doc/linux-doc-*/Documentation/trace/postprocess/trace-pagealloc-postprocess.pl.gz 2>/dev/null | head -1)
[[ -n $PL ]] || die "missing the Perl original (apt-get install linux-doc-6.1)"
zcat "$PL" > $TMP/original.pl
PAGES=${PAGES:-400000}
"$LTAP" record -e kmem:mm_page_alloc -e 'kmem:mm_page_free*' -e kmem:mm_page_pcpu_drain \
  -e kmem:mm_page_alloc_zone_locked -c "$TOP/build/tests/touch_pages $PAGES" -o $TMP/p.dat > /dev/null 2>&1 || die "recording pages failed"
pevents=$(trace-cmd report $TMP/p.dat 2>/dev/null | grep -c ': mm_page')
# the original, fed by trace-cmd (its text has no irq-flags column); debugfs
# hidden, or it builds its extfrag regex from the local format and fails
perl_pipeline() { trace-cmd report $TMP/p.dat 2>/dev/null | unshare -m sh -c "mount -t tmpfs none /sys/kernel/debug; perl $TMP/original.pl"; }
pp=$(best "$LTAP" --input $TMP/p.dat pagealloc-postprocess)
pt=$(best trace-cmd report $TMP/p.dat)
pl=$(best perl_pipeline)
awk -v n=$pevents -v pp=$pp -v pt=$pt -v pl=$pl -v size=$(stat -c %s $TMP/p.dat) 'BEGIN {
  printf "\npage events trace.dat: %d events, %.1f MB; best of 3 runs\n", n, size / 1e6
  printf "%-48s %8.3f s %12.0f events/s\n", "ltap --input pagealloc-postprocess", pp, n / pp
  printf "%-48s %8.3f s %12.0f events/s\n", "trace-cmd report > /dev/null", pt, n / pt
  printf "%-48s %8.3f s %12.0f events/s\n", "trace-cmd report | Perl original", pl, n / pl
  printf "ratio (trace-cmd report | Perl) / ltap pagealloc-postprocess: %.1fx\n", pl / pp
}'

#!/bin/bash
# pagealloc-postprocess against the kernel's own Perl original
# (Documentation/trace/postprocess/trace-pagealloc-postprocess.pl, from
# Debian's linux-doc package): the same per-process numbers on input the
# original can parse, the right ones where it cannot; live on a controlled
# workload; the SIGINT behaviour.
. "$(dirname "$0")/lib.sh"
PL=$(ls /usr/share/doc/linux-doc-*/Documentation/trace/postprocess/trace-pagealloc-postprocess.pl.gz 2>/dev/null | head -1)
[ -n "$PL" ] || fail "the Perl original is missing (make.sh installs linux-doc-6.1)"
zcat "$PL" > $WORK/original.pl
# The original reads the extfrag format from debugfs when it can, and the
# regex it builds from a current kernel's format never matches ("pfn=0x%lx"):
# it runs where debugfs is hidden, so it uses its own default regex.
original() { unshare -m sh -c "mount -t tmpfs none /sys/kernel/debug && perl $WORK/original.pl" < "$1"; }
# rows "process-pid n n n ...", sorted, spaces squeezed
rows() { grep -E '^[^ ]*-[0-9]+ +[0-9]' "$1" | awk '{$1=$1; print}' | LC_ALL=C sort; }

D=$SRCDIR/tests/data/pagealloc-perl.txt
original $D > $WORK/perl.out
run_ltap $WORK/out $WORK/err --input $D pagealloc-postprocess
expect_eq "exit" 0 "$RC"
rows $WORK/perl.out > $WORK/want
rows $WORK/out > $WORK/got
[ "$(wc -l < $WORK/want)" -ge 5 ] || fail "the original found $(wc -l < $WORK/want) processes"
diff -u $WORK/want $WORK/got || fail "per-process numbers differ from the Perl original's"
echo "ok: $(wc -l < $WORK/got) processes, every counter as the Perl original prints it"
expect_grep "header" "^Process +Pages +Pages +Pages +Pages +PCPU +PCPU +PCPU +Fragment +Fragment +MigType +Fragment +Fragment +Unknown$" $WORK/out

# A capture of this kernel (irq-flags column, comms with '/', '<', '>' and
# '_', kmalloc events for the Unknown column): the original reads no line
# of it. Rewritten into the variant it reads, it gives ltap's numbers for
# the capture as it is.
L=$SRCDIR/tests/data/pagealloc-live.txt
original $L > $WORK/perl-raw.out
expect_eq "the original on the capture as it is: processes" 0 "$(rows $WORK/perl-raw.out | wc -l)"
python3 $SRCDIR/tests/live/pagealloc_rewrite.py $L > $WORK/rewritten.txt
original $WORK/rewritten.txt > $WORK/perl.out
run_ltap $WORK/out $WORK/err --input $L pagealloc-postprocess
expect_eq "exit (capture)" 0 "$RC"
rows $WORK/perl.out > $WORK/want
# ltap's process names, rewritten as the capture was
rows $WORK/out | awk '{n = split($1, p, "-"); pid = p[n]; c = substr($1, 1, length($1) - length(pid) - 1);
  gsub(/[^a-zA-Z0-9-]/, "-", c); $1 = c "-" pid; print}' | LC_ALL=C sort > $WORK/got
[ "$(wc -l < $WORK/want)" -ge 5 ] || fail "the original found $(wc -l < $WORK/want) processes in the rewritten capture"
diff -u $WORK/want $WORK/got || fail "capture: numbers differ from the Perl original's on the rewritten capture"
expect_grep "Unknown counts the kmalloc lines" "^find-[0-9]+ .* 1180$" $WORK/out
echo "ok: capture, $(wc -l < $WORK/got) processes as the original counts them once it can read the lines"

# A trace.dat of this kernel (ltap record): the original reads it through
# trace-cmd report's text; rows equal ltap's over the file itself.
run_ltap $WORK/out $WORK/err record -e kmem:mm_page_alloc -e 'kmem:mm_page_free*' -e kmem:mm_page_pcpu_drain \
  -e kmem:mm_page_alloc_zone_locked -c "$PROGS/touch_pages 3000" -o $WORK/pp.dat
expect_eq "record exit" 0 "$RC"
# the file holds what the command's process did at ltap's start gate before
# its exec; ltap leaves it out as the live run did (docs/design.md, "-c counts"), so
# the original gets the report without it: the command's lines before its
# task_rename
trace-cmd report $WORK/pp.dat 2>/dev/null | awk '
  /ltap-record start=.* command=/ { match($0, /command=[0-9]+/); cmd = substr($0, RSTART + 8, RLENGTH - 8) }
  /ltap-record / { next }
  { n = split($1, w, "-"); pid = w[n] }
  cmd != "" && pid == cmd && !execd { if ($0 ~ /task_rename:/) execd = 1; else next }
  { print }' > $WORK/report.txt
grep -q 'task_rename:' $WORK/report.txt || fail "no task_rename of the command in the report"
python3 $SRCDIR/tests/live/pagealloc_rewrite.py $WORK/report.txt > $WORK/rewritten.txt
original $WORK/rewritten.txt > $WORK/perl.out
run_ltap $WORK/out $WORK/err --input $WORK/pp.dat pagealloc-postprocess
expect_eq "exit (trace.dat)" 0 "$RC"
rows $WORK/perl.out > $WORK/want
rows $WORK/out | awk '{n = split($1, p, "-"); pid = p[n]; c = substr($1, 1, length($1) - length(pid) - 1);
  gsub(/[^a-zA-Z0-9-]/, "-", c); $1 = c "-" pid; print}' | LC_ALL=C sort > $WORK/got
grep -qE '^touch-pages-[0-9]+ ([3-9][0-9]{3}|[0-9]{5,}) ' $WORK/want || { cat $WORK/perl.out; fail "the original saw no 3000 allocations of touch_pages"; }
diff -u $WORK/want $WORK/got || fail "trace.dat: numbers differ from the original's over trace-cmd report"
echo "ok: trace.dat, $(wc -l < $WORK/got) processes as the original counts them from trace-cmd report"

# --ignore-pid folds cc1-300 and cc1-301 into cc1, as the original does
unshare -m sh -c "mount -t tmpfs none /sys/kernel/debug && perl $WORK/original.pl --ignore-pid" < $D > $WORK/perl.out
run_ltap $WORK/out $WORK/err --input $D pagealloc-postprocess --ignore-pid
tail -n +5 $WORK/perl.out | awk 'NF {$1=$1; print}' | LC_ALL=C sort > $WORK/want
tail -n +5 $WORK/out | awk 'NF {$1=$1; print}' | LC_ALL=C sort > $WORK/got
grep -q "^cc1 " $WORK/want || fail "--ignore-pid: the original printed no cc1 row"
diff -u $WORK/want $WORK/got || fail "--ignore-pid: rows differ from the original's"
echo "ok: --ignore-pid as the original"

# Without --read-procstat and --prepend-parent the counters are fed in C
# (s:by); with --read-procstat (no task of these inputs lacks a name, so
# the names are the same) every event goes through the Lua handlers: both
# give every row the same, drains, refills and fallbacks included
for f in $D $L; do
  run_ltap $WORK/fast $WORK/err --input $f pagealloc-postprocess
  run_ltap $WORK/slow $WORK/err --input $f pagealloc-postprocess --read-procstat
  [ "$(rows $WORK/fast | wc -l)" -ge 5 ] || fail "$f: $(rows $WORK/fast | wc -l) rows"
  diff -u <(rows $WORK/slow) <(rows $WORK/fast) || fail "$f: the counters fed in C differ from the Lua handlers'"
done
echo "ok: the counters fed in C as the Lua handlers count them"

# live: the workload's allocations and frees, with its parent (ltap, which started it)
run_ltap $WORK/out $WORK/err -c "$PROGS/touch_pages 3000" pagealloc-postprocess --prepend-parent
expect_eq "live exit" 0 "$RC"
line=$(grep -E ' :: touch_pages-[0-9]+ ' $WORK/out)
echo "$line" | grep -qE '^ltap-[0-9]+ :: touch_pages-[0-9]+ ' || { cat $WORK/out; fail "no parent for touch_pages: '$line'"; }
n=$(echo "$line" | awk '{print $4}')
[ "$n" -ge 3000 ] || fail "touch_pages allocated $n pages, expected at least 3000"
echo "ok: live, parent known, $n allocations"

# SIGINT: the first prints the report 2 s later and goes on; a second
# within 2 s of another prints it and exits 0. Each step waits for what
# ltap prints (its on_interrupt output is flushed as it goes).
"$LTAP" -v pagealloc-postprocess > $WORK/sig 2>&1 & l=$!; STARTED+=($l)
wait_attached $WORK/sig
kill -INT $l
wait_for $WORK/sig "^SIGINT received, report pending"
wait_for $WORK/sig "^Process"
kill -0 $l || fail "ltap ended at the first SIGINT"
expect_eq "report 2 s after the first SIGINT" 1 "$(grep -c '^Process' $WORK/sig)"
# more than 2 s after the first (the report came 2 s after it): pending again
kill -INT $l
wait_for $WORK/sig "^SIGINT received, report pending" 2
kill -INT $l
wait $l; rc=$?
expect_eq "exit after the second SIGINT" 0 "$rc"
expect_grep "second SIGINT" "^Second SIGINT received quickly, exiting$" $WORK/sig
expect_eq "reports printed (first SIGINT, end)" 2 "$(grep -c '^Process' $WORK/sig)"


# Reading trace_pipe text from a pipe that has nothing to say: a second
# quick SIGINT ends the run at the next line (the original leaves its read
# loop there too), with the report ...
mkfifo $WORK/fifo
exec 7<>$WORK/fifo
"$LTAP" --input - pagealloc-postprocess < $WORK/fifo > $WORK/pipe 2>&1 & l=$!; STARTED+=($l)
wait_reading $l
kill -INT $l
wait_for $WORK/pipe "^SIGINT received, report pending"
kill -INT $l
wait_for $WORK/pipe "^Second SIGINT received quickly, exiting$"
kill -0 $l || fail "ltap ended before the next line came"
head -3 $SRCDIR/tests/data/pagealloc-perl.txt | tail -1 >&7
wait $l; rc=$?
# ltap read the line before it ended: nothing is left in the pipe
! read -t 0 -u 7 || fail "ltap ended without reading the next line"
expect_eq "exit at the next line" 0 "$rc"
expect_eq "the report at the end" 1 "$(grep -c '^Process' $WORK/pipe)"
exec 7>&-
# ... and a fifth SIGINT in a row before that line ends it without one
rm -f $WORK/fifo; mkfifo $WORK/fifo
exec 7<>$WORK/fifo
"$LTAP" --input - pagealloc-postprocess < $WORK/fifo > $WORK/many 2>&1 & l=$!; STARTED+=($l)
wait_reading $l
for i in 1 2 3 4 5; do kill -INT $l; signal_taken $l; done
wait $l; rc=$?
exec 7>&-
expect_eq "exit after many SIGINTs" 0 "$rc"
expect_grep "many SIGINTs" "^Many SIGINTs received, exiting now without report$" $WORK/many
expect_eq "no report after many SIGINTs" 0 "$(grep -c '^Process' $WORK/many)"

# ltap annotate on tests/progs/annotate_target: live, over ltap profile
# --save's file, and over a perf.data of perf record -g. Each time: >= 80% of
# crunch()'s samples on the loop's lines (ANNOTATE_HOT_BEGIN..END), the
# instruction shares summing to 100%, every instruction as objdump -d prints
# it; the saved file's shares recomputed from its frames; the perf.data's
# shares equal to perf annotate's. Damaged files end in one line, exit 1
# (targeted damage, and 150 random mutations).
T_SRC=$SRCDIR/tests/progs/annotate_target.c
first=$(grep -n '/\* ANNOTATE_HOT_BEGIN \*/' $T_SRC | cut -d: -f1)
last=$(grep -n '/\* ANNOTATE_HOT_END \*/' $T_SRC | cut -d: -f1)
objdump -d --no-show-raw-insn --disassemble=crunch $PROGS/annotate_target |
  awk -F'\t' '/^ +[0-9a-f]+:\t/ { a = $1; gsub(/[ :]/, "", a); t = $2; for (i = 3; i <= NF; i++) t = t "\t" $i; sub(/ +$/, "", t); print a "\t" t }' \
  > $WORK/objdump
[ "$(wc -l < $WORK/objdump)" -ge 10 ] || fail "objdump shows no crunch"

# check_annotation WHAT FILE: the three properties of an annotation of crunch
check_annotation() {
  local what=$1 out=$2
  # the sorted summary: "[*] PCT annotate_target.c:LINE<tab>source"
  local hot
  hot=$(awk -v f=$first -v l=$last '/^[* ] +[0-9.]+ annotate_target\.c:[0-9]+/ {
          n = $0; sub(/^[* ] +/, "", n); split(n, p, /[ \t]+/); split(p[2], q, ":")
          if (q[2] + 0 >= f && q[2] + 0 <= l) s += p[1] } END { printf "%.2f", s }' $out)
  echo "$what: $hot% of crunch's samples on lines $first-$last"
  awk -v h=$hot 'BEGIN { exit !(h >= 80) }' || { cat $out; fail "$what: only $hot% on the loop's lines"; }
  grep -qE '^\* +[0-9.]+ annotate_target\.c:' $out || fail "$what: no hottest line marked"
  # instruction rows: "PCT :   ADDR:   TEXT"
  sed -n 's/^ *\([0-9.]*\) : *\([0-9a-f]*\):   \(.*\)$/\1\t\2\t\3/p' $out > $WORK/rows
  local sum
  sum=$(awk -F'\t' '{ s += $1 } END { printf "%.2f", s }' $WORK/rows)
  echo "$what: instruction shares sum to $sum% over $(wc -l < $WORK/rows) instructions"
  awk -v s=$sum 'BEGIN { exit !(s >= 99.5 && s <= 100.5) }' || fail "$what: shares sum to $sum%"
  cut -f2,3 $WORK/rows > $WORK/insns
  diff $WORK/objdump $WORK/insns > $WORK/insns.diff || { cat $WORK/insns.diff; fail "$what: instructions differ from objdump -d"; }
  echo "ok: $what: every instruction as objdump -d prints it"
}

run_ltap $WORK/live $WORK/err annotate crunch -F 999 -c "$PROGS/annotate_target 1"
cat $WORK/err
expect_eq "live: exit" 0 "$RC"
check_annotation live $WORK/live
expect_grep "live: perf's header" '^ Percent \|	Source code & Disassembly of annotate_target for cpu-clock \([0-9]+ samples, percent: local period\)$' $WORK/live
expect_grep "live: source lines interleaved" '^ +: [0-9]+ +a = a \* 6364136223846793005ul \+ i;$' $WORK/live

# ltap's own saved profile: perf script text with symbol offsets
run_ltap $WORK/out $WORK/err profile -F 999 -c "$PROGS/annotate_target 1" --save $WORK/prof.txt --top 1
expect_eq "save: exit" 0 "$RC"
expect_grep "save: said" '^ltap: [0-9]+ samples saved to ' $WORK/err
run_ltap $WORK/saved $WORK/err annotate crunch -i $WORK/prof.txt
expect_eq "saved: exit" 0 "$RC"
check_annotation saved $WORK/saved
# the shares recomputed from the file's leaf frames, independently
python3 - $WORK/prof.txt $(head -1 $WORK/objdump | cut -f1) > $WORK/expect <<'PY'
import re, sys, collections
n, leaf = collections.Counter(), False
for l in open(sys.argv[1]):
    if l.strip() and not l[0].isspace() and not l.startswith('#'):
        leaf = True
    elif leaf and l[0].isspace():
        leaf = False
        m = re.match(r'\s*[0-9a-f]+ crunch\+0x([0-9a-f]+) ', l)
        if m:
            n[int(m.group(1), 16)] += 1
t = sum(n.values())
for o in sorted(n):
    print('%x %.2f' % (int(sys.argv[2], 16) + o, 100 * n[o] / t))
PY
sort -o $WORK/expect $WORK/expect
awk -F'\t' '$1 != "0.00" { print $2, $1 }' $WORK/rows | sort > $WORK/got
diff $WORK/expect $WORK/got || fail "saved: shares differ from the file's own frames"
echo "ok: saved: shares as the file's leaf frames give them"
# ltap flamegraph folds the same file (perf script text)
run_ltap $WORK/out $WORK/err flamegraph --folded $WORK/prof.folded $WORK/prof.txt /dev/null
expect_eq "saved: flamegraph exit" 0 "$RC"
expect_grep "saved: folded stacks" '^annotate_target;.*main;crunch [0-9]+$' $WORK/prof.folded

# perf's perf.data, read directly; perf annotate on the same file as the peer
( cd $WORK && perf record -q -F 999 -g -o $WORK/perf.data -- $PROGS/annotate_target 1 ) > $WORK/perf.err 2>&1 ||
  { cat $WORK/perf.err; fail "perf record failed"; }
run_ltap $WORK/pd $WORK/err annotate crunch -i $WORK/perf.data
cat $WORK/err
expect_eq "perf.data: exit" 0 "$RC"
check_annotation perf.data $WORK/pd
perf annotate -i $WORK/perf.data --stdio -s crunch 2>/dev/null | sed -n 's/^ *\([0-9.]*\) : *\([0-9a-f]*\):.*/\2 \1/p' > $WORK/perf.rows
awk -F'\t' '{ print $2, $1 }' $WORK/rows > $WORK/ltap.rows
[ -s $WORK/perf.rows ] || fail "perf annotate printed no instruction"
diff $WORK/perf.rows $WORK/ltap.rows || fail "perf.data: shares differ from perf annotate's"
echo "ok: perf.data: every instruction's share equals perf annotate's"
expect_eq "perf.data: sample count as perf annotate" \
  "$(perf annotate -i $WORK/perf.data --stdio -s crunch 2>/dev/null | grep -oE '\([0-9]+ samples' | head -1)" \
  "$(grep -oE '\([0-9]+ samples' $WORK/pd | head -1)"

# errors: one line, exit 1
run_ltap $WORK/out $WORK/err annotate no_such_function -i $WORK/perf.data
expect_eq "unknown function: exit" 1 "$RC"
expect_grep "unknown function" '^ltap: annotate: no sample in no_such_function \(of [0-9]+ samples\)$' $WORK/err
run_ltap $WORK/out $WORK/err annotate crunch -i $WORK/nonexistent
expect_eq "no file: exit" 1 "$RC"
expect_grep "no file" "^ltap: annotate: $WORK/nonexistent: No such file or directory$" $WORK/err
run_ltap $WORK/out $WORK/err annotate crunch -i $WORK/perf.data -a
expect_eq "-i with -a: exit" 2 "$RC"
expect_eq "-i with -a" "ltap: annotate: -i reads a saved profile: -F, -p, -c, -a, -d and --record are for a live one (see: ltap annotate -h)" "$(cat $WORK/err)"
run_ltap $WORK/out $WORK/err annotate -i $WORK/perf.data
expect_eq "no function: exit" 2 "$RC"
expect_eq "no function" "ltap: annotate: which function? (SYMBOL) (see: ltap annotate -h)" "$(cat $WORK/err)"
# damaged perf.data: truncated, header sizes, record sizes; never a crash or a hang
size=$(stat -c %s $WORK/perf.data)
python3 - $WORK/perf.data $WORK/bad <<'PY'
import random, struct, sys
data = open(sys.argv[1], 'rb').read()
out = sys.argv[2]
h = struct.unpack_from('<8sQQQQQQQQ', data)
data_off, data_size = h[5], h[6]
cases = {
  'truncated-header': data[:50],
  'truncated-data': data[:data_off + data_size // 2],
  'attr-size': data[:16] + struct.pack('<Q', 1 << 40) + data[24:],
  'attrs-outside': data[:24] + struct.pack('<QQ', len(data), 4096) + data[40:],
  'data-outside': data[:40] + struct.pack('<QQ', data_off, 1 << 50) + data[56:],
  'record-size-0': data[:data_off + 6] + b'\0\0' + data[data_off + 8:],
  'record-cut': data[:40] + struct.pack('<QQ', data_off, data_size - 3) + data[56:],
  'no-records': data[:40] + struct.pack('<QQ', data_off, 0) + data[56:],
  'pipe': data[:8] + struct.pack('<Q', 16) + data[16:],
  'not-perf': b'x' * 200,
}
for name, d in cases.items():
    open('%s.%s' % (out, name), 'wb').write(d)
PY
for f in $WORK/bad.*; do
  set +e; timeout 20 "$LTAP" annotate crunch -i $f > $WORK/out 2> $WORK/err; rc=$?; set -e
  case $rc in 0|1) ;; *) cat $WORK/err; fail "$(basename $f): exit $rc" ;; esac
  [ $rc -eq 0 ] || [ "$(grep -c '^ltap: annotate: ' $WORK/err)" -eq 1 ] || { cat $WORK/err; fail "$(basename $f): not one line"; }
done
expect_grep "truncated" "annotate: cannot read .*bad.truncated-data: damaged perf.data \\(its header\\)" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.truncated-data 2>&1)
expect_grep "record cut" "damaged perf.data \\(a record (cut short|of [0-9]+ bytes) at offset" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.record-cut 2>&1)
expect_grep "record of size 0" "damaged perf.data \\(a record of 0 bytes at offset [0-9]+\\)" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.record-size-0 2>&1)
expect_grep "no records" "^ltap: annotate: no sample in crunch \\(of 0 samples\\)$" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.no-records 2>&1 | grep -v stale)
expect_grep "pipe" "a perf.data written to a pipe: not read" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.pipe 2>&1)
expect_grep "attribute size" "damaged perf.data \(an attribute of 1099511627776 bytes\)" <(timeout 20 "$LTAP" annotate crunch -i $WORK/bad.attr-size 2>&1)
echo "ok: $(ls $WORK/bad.* | wc -l) damaged perf.data files: exit 0 or 1, one line"
# 150 damaged copies (truncated, bytes zeroed or flipped: tests/fuzz/mutate_dat.py):
# an annotation, or exit 1 and one line; never a signal, a hang or a
# sanitizer report. Here, under the live-test lock: every ltap start reaps
# what killed ltaps left (their instances, probes, command cgroups), which
# other live tests count on doing themselves.
here=$SRCDIR/tests/fuzz work=$WORK
python3 $here/mutate_dat.py $WORK/cases 150 17 $WORK/perf.data > $WORK/cases.txt
. $here/mutate_lib.sh
case_judge() { # RC FILE
  if [ "$1" -eq 0 ]; then
    grep -q '^ Percent |' "$work/out" || why="exit 0 without an annotation"
    return 0
  fi
  # (a start may also say what it reaped of killed ltaps: not this case's)
  [ "$1" -eq 1 ] && [ "$(grep -c '^ltap: annotate: ' "$work/err")" -eq 1 ] || why="exit $1 without one line"
  return 1
}
set +e
mutate_loop $WORK/cases $WORK/cases.txt "$LTAP" annotate crunch -i @
set -e
echo "mutations: 150 cases (seed 17): $errors refused, $ok annotated; $crashes crashes, $hangs hangs, $reports with sanitizer reports, $bad bad endings"
[ $((crashes + hangs + reports + bad)) -eq 0 ] || fail "damaged perf.data copies"
[ $ok -gt 0 ] && [ $errors -gt 0 ] || fail "the mutations were all read, or all refused"

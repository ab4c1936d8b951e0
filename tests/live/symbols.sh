#!/bin/bash
# sym() against eu-addr2line -f -S (and objdump's PLT labels) on a few
# hundred code addresses each of a PIE with DWARF (tests/progs/hot), libc
# (DWARF from libc6-dbg) and python3: tests/live/symbols_compare.py.
. "$(dirname "$0")/lib.sh"
command -v eu-addr2line >/dev/null || fail "eu-addr2line is not installed (apt-get install elfutils)"
dpkg -s libc6-dbg >/dev/null 2>&1 || fail "libc6-dbg is not installed: libc has no DWARF to compare"
$PROGS/hot 60 > /dev/null & H=$!
STARTED+=($H)
/usr/bin/python3 -c 'import time; time.sleep(60)' & P=$! # workload: a python3 process to look up
STARTED+=($P)
wait_for /proc/$H/maps 'libc\.so\.6$'
wait_for /proc/$P/maps 'libc\.so\.6$'
libc=$(awk '/libc\.so\.6$/ { print $6; exit }' /proc/$H/maps)
set +e
python3 $SRCDIR/tests/live/symbols_compare.py "$LTAP" $WORK $H:$PROGS/hot $H:$libc $P:/usr/bin/python3 > $WORK/cmp 2>&1
RC=$?
set -e
cat $WORK/cmp
expect_eq "symbols_compare exit" 0 "$RC"
# every file compared on a few hundred addresses, and source lines where DWARF has them
for f in hot libc.so.6 python3; do
  n=$(sed -nE "s/^$f[^:]*: ([0-9]+) addresses.*/\1/p" $WORK/cmp)
  [ "${n:-0}" -ge 300 ] || fail "$f: only ${n:-0} addresses compared"
done
expect_grep "hot's lines compared" "^hot: .*file:line equal ([1-9][0-9]{2,})/\1 " $WORK/cmp
expect_grep "libc's lines compared" "^libc\.so\.6: .*file:line equal ([1-9][0-9]{2,})/\1 " $WORK/cmp
expect_grep "PLT entries named" "^libc\.so\.6: .* [1-9][0-9]* PLT entries as objdump names them" $WORK/cmp

# A file mapped from a directory anyone may write to is untrusted input: ltap
# neither blocks on what is put there later nor searches debug files beside it.
D=$WORK/shared
mkdir -m 1777 $D
# the mapped file deleted, a FIFO in the place of the name the kernel reports
cp $PROGS/hot $D/hot
$D/hot 30 > /dev/null & X=$!
STARTED+=($X)
wait_for /proc/$X/maps "$D/hot$"
addr=$(awk -v f="$D/hot" '$6 == f && $2 ~ /x/ { split($1, r, "-"); print r[1]; exit }' /proc/$X/maps)
rm $D/hot
mkfifo "$D/hot (deleted)"
set +e
timeout 10 "$LTAP" -e "begin(function() print(sym(0x$addr, $X)) exit() end)" > $WORK/out 2> $WORK/err
RC=$?
set -e
expect_eq "a FIFO in the mapped file's place: no hang" "0 nil	nil	$D/hot (deleted)" "$RC $(cat $WORK/out)"
# a debug link to a FIFO beside the file: not opened (only /usr/lib/debug is searched)
cp $PROGS/hot $D/hot2
objcopy --only-keep-debug $D/hot2 $D/hot2.debug
objcopy --strip-debug --add-gnu-debuglink=$D/hot2.debug $D/hot2
rm $D/hot2.debug
mkfifo $D/hot2.debug
$D/hot2 30 > /dev/null & X=$!
STARTED+=($X)
wait_for /proc/$X/maps "$D/hot2$"
base=$(awk -v f="$D/hot2" '$6 == f && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' /proc/$X/maps)
spin=$(nm $D/hot2 | awk '$3 == "hot_spin" { print $1 }')
set +e
timeout 10 "$LTAP" -e "begin(function() print(sym(0x$base + 0x$spin + 2, $X)) exit() end)" > $WORK/out 2> $WORK/err
RC=$?
set -e
expect_eq "a debug link to a FIFO: no hang, the symbol table still used" "0 hot_spin	2	$D/hot2" "$RC $(cat $WORK/out)"

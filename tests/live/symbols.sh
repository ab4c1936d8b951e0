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

# a stripped file without a build id, its debug info found by its
# .gnu_debuglink name (CRC checked) where eu-addr2line finds it when only
# root may write to the directory: beside the file, then in .debug/ there;
# a debug file whose CRC does not match is not used, by either
mkdir -m 700 $WORK/dl
objcopy --remove-section .note.gnu.build-id $PROGS/hot $WORK/dl/hot4 2>/dev/null
objcopy --only-keep-debug $WORK/dl/hot4 $WORK/dl/hot4.debug 2>/dev/null
strip --strip-all $WORK/dl/hot4
objcopy --add-gnu-debuglink=$WORK/dl/hot4.debug $WORK/dl/hot4
spin=$(nm $PROGS/hot | awk '$3 == "hot_spin" { print $1 }')
$WORK/dl/hot4 30 > /dev/null & X=$!
STARTED+=($X)
wait_for /proc/$X/maps "$WORK/dl/hot4$"
base=$(awk -v f="$WORK/dl/hot4" '$6 == f && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' /proc/$X/maps)
# both names of the address: ltap's sym() and eu-addr2line's
names() {
  set +e
  timeout 10 "$LTAP" -e "begin(function() print((sym(0x$base + 0x$spin + 2, $X))) exit() end)" > $WORK/out 2>&1
  echo "$? $(cat $WORK/out) $(eu-addr2line -f -e $WORK/dl/hot4 0x$(printf %x $((0x$spin + 2))) | head -1)"
  set -e
}
expect_eq "debug link beside the file" "0 hot_spin hot_spin" "$(names)"
mkdir $WORK/dl/.debug
mv $WORK/dl/hot4.debug $WORK/dl/.debug/
expect_eq "debug link in .debug/" "0 hot_spin hot_spin" "$(names)"
echo x >> $WORK/dl/.debug/hot4.debug
expect_eq "debug link, CRC not matching" "0 nil ??" "$(names)"

# DEBUGINFOD_URLS set (Debian asks whether to set it for every login): the
# debug info of a stripped file is looked for on this machine only, never
# asked of a debuginfod server (elfutils' own search would, as root, in the
# middle of the event loop, for up to 90 s a file); a server that accepts
# and never answers sees no connection, and sym() answers at once
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept(); held.append(c)
    open(sys.argv[1], "a").write("connection\n")
' $WORK/debuginfod.log > $WORK/debuginfod.port & STARTED+=($!)
wait_for $WORK/debuginfod.port '^[0-9]+$'
cp $PROGS/hot $WORK/hot3
strip --strip-all $WORK/hot3
$WORK/hot3 30 > /dev/null & X=$!
STARTED+=($X)
wait_for /proc/$X/maps "$WORK/hot3$"
base=$(awk -v f="$WORK/hot3" '$6 == f && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' /proc/$X/maps)
set +e
DEBUGINFOD_URLS=http://127.0.0.1:$(cat $WORK/debuginfod.port) DEBUGINFOD_TIMEOUT=60 \
  timeout 20 "$LTAP" -e "begin(function() print(select(3, sym(0x$base + 0x$spin, $X))) exit() end)" > $WORK/out 2> $WORK/err
RC=$?
set -e
expect_eq "a stripped file, DEBUGINFOD_URLS set: answered from the machine" "0 $WORK/hot3" "$RC $(cat $WORK/out)"
# the same for ltap annotate's disassembler (it used elfutils' own search:
# 3 connections and a 15 s stall with DEBUGINFOD_TIMEOUT=5)
set +e
DEBUGINFOD_URLS=http://127.0.0.1:$(cat $WORK/debuginfod.port) DEBUGINFOD_TIMEOUT=60 \
  timeout -k 5 20 "$LTAP" -e "begin(function() print(ltap.disasm('$WORK/hot3', 'cold_helper')) exit() end)" > $WORK/out 2> $WORK/err
RC=$?
set -e
expect_eq "ltap.disasm of a stripped file, DEBUGINFOD_URLS set" "0 nil	$WORK/hot3 has no function cold_helper" "$RC $(cat $WORK/out)"
expect_eq "connections to the debuginfod server" "0" "$(cat $WORK/debuginfod.log 2>/dev/null | wc -l)"

#!/usr/bin/env bash
# bench/vmboot_top.sh — the seed's second step of issue 25: ltap top -p on
# QEMU during the slow phase of a boot (SeaBIOS's POST, emulated), beside
# perf record -p on the same process for the same 1.5 s. Prints both
# tables (the top 12 symbols) for comparison.
#
#   sudo bench/vmboot_top.sh          (takes the live-tests lock; needs /dev/kvm and QEMU)
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
W=$(mktemp -d /tmp/ltap-vmboot-top.XXXXXX)
trap 'rm -rf "$W"' EXIT
as --32 -o "$W/guest.o" "$TOP/tests/progs/vmboot_guest.S"
ld -m elf_i386 -Ttext 0 --oformat binary -o "$W/guest.img" "$W/guest.o"
head -c 1234567 /dev/urandom > "$W/initrd.img"
exec 9>/run/lock/ltap-live-tests.lock
flock 9
cd "$W"
qemu-system-x86_64 -enable-kvm -nodefaults -nographic -m 64 -kernel guest.img -initrd initrd.img \
	-serial file:serial.txt -debugcon file:debug.txt -global isa-debugcon.iobase=0x402 -no-reboot 2>/dev/null &
Q=$!
# the firmware's POST has begun: the slow phase
until grep -q "Running on KVM" debug.txt 2>/dev/null; do sleep 0.01; done # poll
"$LTAP" top -p $Q -d 1.5s -i 1.5s -n 12 -z > ltap-top.txt 2>ltap-top.err &
L=$!
perf record -q -F 4000 -e cpu-clock -p $Q -o perf.data -- sleep 1.5 2>/dev/null # workload: the sampled span
wait $L
wait $Q
grep -q "Booting from" debug.txt || echo "vmboot_top.sh: the boot did not reach the boot device" >&2
echo "== ltap top -p $Q -z -d 1.5s"
cat ltap-top.txt
echo "== perf record -p $Q -F 4000 -e cpu-clock -- sleep 1.5; perf report --no-children --sort comm,dso,sym"
perf report -i perf.data --no-children --sort comm,dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12

#!/usr/bin/env python3
"""vmboot_check.py: what ltap vmboot printed for the test guest, checked.

  vmboot_check.py OUT DEBUGCON_FILE INITRD

Every phase present and in order; the firmware log lines equal what QEMU's
own -debugcon file captured; the initrd copy's byte count is the file's
size; every exit named (NAME COUNT, no bare numbers). Prints what it
checked; exits 1 at the first failure."""
import os
import re
import sys

PHASES = ["QEMU start (exec)", "main", "run (vm_start)", "first guest instruction (KVM_RUN)", "BIOS post",
          "boot device", "option ROM (fw_cfg DMA)", "option ROM: copy initrd", "option ROM: copy kernel",
          "kernel start (serial)", "init", "shutdown request", "stop (qemu_cleanup)", "exit"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    out_path, debugcon, initrd = sys.argv[1:4]
    out = open(out_path, encoding="latin-1").read().split("\n")
    head = out.index(next(l for l in out if re.match(r"\s+ms\s+phase", l)))
    rows = []
    for l in out[head + 1:]:
        m = re.match(r"^\s*([0-9.]+)  (.{44}) +([0-9.]+) +([0-9.]+)% +([0-9.]+)%  (.*)$", l)
        if not m:
            break
        rows.append((float(m.group(1)), m.group(2).strip(), m.group(6)))
    names = [re.sub(r":.*", "", n) if not n.startswith("option ROM:") else n for _, n, _ in rows]
    if names != PHASES:
        fail(f"phases {names}, expected {PHASES}")
    times = [t for t, _, _ in rows]
    if times != sorted(times):
        fail(f"phase times out of order: {times}")
    print(f"ok: {len(rows)} phases in order")
    for _, n, exits in rows:
        for item in filter(None, exits.split(", ")):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_ ]* [0-9,]+", item) or re.fullmatch(r"[0-9,]+ [0-9,]+", item):
                fail(f"exit not named in phase {n}: {item!r}")
    print("ok: exits named")
    size = os.path.getsize(initrd)
    copy = [l for l in out if l.startswith("copy initrd: ")]
    if not copy or int(copy[0].split()[2].replace(",", "")) != size:
        fail(f"initrd copy {copy}, the file has {size} bytes")
    print(f"ok: initrd copy {size} bytes")
    start = out.index("firmware log (port 0x402):")
    fw = []
    for l in out[start + 1:]:
        if not l:
            break
        fw.append(re.sub(r"^\s*[0-9.]+  ", "", l, count=1))
    want = open(debugcon, encoding="latin-1").read().split("\n")
    if want and want[-1] == "":
        want.pop()
    if fw != want:
        for i, (a, b) in enumerate(zip(fw, want)):
            if a != b:
                fail(f"firmware line {i + 1}: ltap {a!r}, -debugcon {b!r}")
        fail(f"ltap has {len(fw)} firmware lines, -debugcon {len(want)}")
    print(f"ok: {len(fw)} firmware lines equal -debugcon's")


if __name__ == "__main__":
    main()

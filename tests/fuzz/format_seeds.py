#!/usr/bin/env python3
"""format_seeds.py OUTDIR FILE...: seeds for fuzz_format, one per event
format of each FILE (a version 6 trace.dat, whose formats are plain text,
or a tracefs format file): the format, a 0 byte, and a record it describes
(the id in common_type, other numbers 1, each __data_loc pointing at "ab"
after the fixed fields)."""
import os
import re
import struct
import sys


def record(fmt):
    fields = re.findall(rb"field:([^;]*);\toffset:(\d+);\tsize:(\d+);", fmt)
    ev_id = int(re.search(rb"\nID: (\d+)", fmt).group(1))
    end = max(int(o) + int(s) for _, o, s in fields)
    rec = bytearray(end)
    tail = bytearray()
    for decl, off, size in fields:
        off, size = int(off), int(size)
        if b"__data_loc" in decl or b"__rel_loc" in decl:
            at = end + len(tail)
            tail += b"ab\0"
            rec[off:off + 4] = struct.pack("<I", (3 << 16) | at)
        elif b"common_type" in decl:
            rec[off:off + 2] = struct.pack("<H", ev_id)
        elif size in (1, 2, 4, 8) and b"[" not in decl:
            rec[off:off + size] = (1).to_bytes(size, "little")
    return bytes(rec + tail)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        data = open(path, "rb").read()
        for m in re.finditer(rb"name: (\w+)\nID: \d+\nformat:\n.*?\nprint fmt: [^\n]*\n", data, re.S):
            fmt = m.group(0)
            with open(os.path.join(out, m.group(1).decode()), "wb") as f:
                f.write(fmt + b"\0" + record(fmt))


if __name__ == "__main__":
    main()

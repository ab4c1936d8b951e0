#!/usr/bin/env python3
"""damage_dat.py FIXTURE OUTDIR: trace.dat files damaged on purpose.

FIXTURE is tests/data/getppid-pages.dat (version 6, uncompressed: its
formats are plain text). Each case edits the format of kmem:mm_page_alloc
in place, keeping its length, so the rest of the file is untouched:

  nopid     common_pid renamed: ltap read a tid through a NULL field
  hexlen    print fmt __print_hex(REC->pfn, REC->pfn << 12): libtraceevent
            prints 80 MB from a 40-byte record
  divzero   print fmt REC->pfn / REC->order: libtraceevent divides by 0
  cpumask   print fmt __get_cpumask(nosuch): libtraceevent uses the field
            it did not find
  shortrec  migratetype at offset 92: past every 40-byte record

and one that is sound but large:

  bigtext   a kallsyms section of 6 MB (the file has none): a frame larger
            than the buffer ltap reads the reader's frames into
"""
import os
import struct
import sys


def edit(data, start, old, new):
    at = data.index(old, start)
    assert len(new) == len(old), (old, new)
    return data[:at] + new + data[at + len(old):]


def print_fmt(data, start, fmt):
    """Replaces the print fmt line after start by fmt, padded with spaces."""
    at = data.index(b"print fmt: ", start) + len(b"print fmt: ")
    end = data.index(b"\n", at)
    assert len(fmt) <= end - at
    return data[:at] + fmt + b" " * (end - at - len(fmt)) + data[end:]


def big_kallsyms(data):
    """Version 6: the kallsyms section holds 6 MB of symbols; the per-CPU
    data offsets (absolute, page-aligned) move by as much."""
    u32 = lambda p: struct.unpack("<I", data[p:p + 4])[0]
    u64 = lambda p: struct.unpack("<Q", data[p:p + 8])[0]
    p = data.index(b"\0", 10) + 1 + 1 + 1 + 4
    for name in (b"header_page\0", b"header_event\0"):
        assert data[p:p + len(name)] == name
        p += len(name)
        p += 8 + u64(p)
    n, p = u32(p), p + 4
    for _ in range(n):
        p += 8 + u64(p)
    systems, p = u32(p), p + 4
    for _ in range(systems):
        p = data.index(b"\0", p) + 1
        n, p = u32(p), p + 4
        for _ in range(n):
            p += 8 + u64(p)
    old = u32(p)
    text = b"".join(b"ffffffff%08x T ltap_fuzz_symbol_%d\n" % (0x81000000 + 16 * i, i) for i in range(200000))
    text += b" " * (-(len(text) - old) % 4096)  # keep the data page-aligned
    delta = len(text) - old
    out = bytearray(data[:p] + struct.pack("<I", len(text)) + text + data[p + 4 + old:])
    fly = out.index(b"flyrecord\0") + 10
    for cpu in range((len(out) - fly) // 16):
        at = fly + 16 * cpu
        off, size = struct.unpack("<QQ", out[at:at + 16])
        if not off or off > len(data):
            break
        out[at:at + 8] = struct.pack("<Q", off + delta)
    return bytes(out)


def main():
    fixture, out = sys.argv[1], sys.argv[2]
    data = open(fixture, "rb").read()
    ev = data.index(b"name: mm_page_alloc\n")
    cases = {
        "nopid": edit(data, ev, b"int common_pid;", b"int common_pXd;"),
        "hexlen": print_fmt(data, ev, b'"%s", __print_hex(REC->pfn, REC->pfn << 12)'),
        "divzero": print_fmt(data, ev, b'"%lu", REC->pfn / REC->order'),
        "cpumask": print_fmt(data, ev, b'"%s", __get_cpumask(nosuch)'),
        "shortrec": edit(data, ev, b"int migratetype;\toffset:32;", b"int migratetype;\toffset:92;"),
        "bigtext": big_kallsyms(data),
    }
    os.makedirs(out, exist_ok=True)
    for name, d in cases.items():
        with open(os.path.join(out, name + ".dat"), "wb") as f:
            f.write(d)


if __name__ == "__main__":
    main()

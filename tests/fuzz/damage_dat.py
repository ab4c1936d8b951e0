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
"""
import os
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
    }
    os.makedirs(out, exist_ok=True)
    for name, d in cases.items():
        with open(os.path.join(out, name + ".dat"), "wb") as f:
            f.write(d)


if __name__ == "__main__":
    main()

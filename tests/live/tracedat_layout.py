#!/usr/bin/env python3
"""tracedat_layout.py FILE: walks a version 6 trace.dat as libtracecmd reads
it (trace-cmd's lib/trace-cmd/trace-input.c) up to the CPUs' data, and says
what follows the data offsets: with the trace clock option, an 8-byte size
and the clock's name "[NAME]" (what trace-cmd's save_clock writes), then
the page-aligned data. Exits 1 naming the first thing out of place."""
import struct
import sys

d = open(sys.argv[1], "rb").read()
p = 0


def fail(why):
    print(f"FAIL: {why} (offset {p})")
    sys.exit(1)


def take(n):
    global p
    if p + n > len(d):
        fail(f"file ends before {n} more bytes")
    v = d[p:p + n]
    p += n
    return v


def u(n):
    return int.from_bytes(take(n), "little")


def cstr():
    global p
    e = d.find(b"\0", p)
    if e < 0:
        fail("unterminated string")
    v = d[p:e]
    p = e + 1
    return v


if take(10) != b"\x17\x08Dtracing" or cstr() != b"6":
    fail("not a version 6 trace.dat")
take(2)
page = u(4)
for name in (b"header_page", b"header_event"):
    if cstr() != name:
        fail(f"no {name.decode()}")
    take(u(8))
for _ in range(u(4)):  # ftrace formats
    take(u(8))
for _ in range(u(4)):  # event systems
    cstr()
    for _ in range(u(4)):
        take(u(8))
take(u(4))  # kallsyms
take(u(4))  # printk formats
take(u(8))  # cmdlines
cpus = u(4)
if take(10) != b"options  \0":
    fail("no options")
clock = False
while True:
    oid = u(2)
    if oid == 0:
        break
    size = u(4)
    take(size)
    clock |= oid == 4
if cstr() != b"flyrecord":
    fail("no flyrecord")
offsets = [(u(8), u(8)) for _ in range(cpus)]
if not clock:
    fail("no trace clock option")
n = u(8)
name = take(n).decode("ascii", "replace")
if not (name.startswith("[") and name.endswith("]")) or n > 64:
    fail(f"the trace clock after the offsets is {n} bytes: {name[:40]!r}")
for off, size in offsets:
    if off % page or off < p:
        fail(f"a CPU's data at {off}: not page-aligned after the header")
print(f"trace clock {name} after the offsets of {cpus} CPUs, data page-aligned")

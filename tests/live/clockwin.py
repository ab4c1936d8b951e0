#!/usr/bin/env python3
"""clockwin.py: event times against the windows progs/clockwin measured.

  clockwin.py check WINDOWS EVENTS [PEER]     every event inside its window
  clockwin.py bound WINDOWS EVENTS ERR        every event within the bound ltap's
                                              -v stated last in ERR ("within +-N
                                              ns") of its window, N at most 1000
  clockwin.py report WINDOWS EVENTS MINUTES   per stretch of MINUTES, never failing
                                              (bench/clock.sh)

WINDOWS holds clockwin's "T0 T1" lines (CLOCK_MONOTONIC ns around one
getsid() each), EVENTS one event time a line (ltap's e.time; perf script's
"SECS.NANOS:" lines are read too), PEER a second such list for the same
events (perf record -k CLOCK_MONOTONIC beside ltap): each of its events must
be inside its window too, and ltap's time is compared with it. Windows do not
overlap, so the n-th event in time belongs to the n-th window."""
import re
import statistics
import sys


def times(path):
    out = []
    for line in open(path):
        m = re.search(r"(\d+)\.(\d{9}):", line)
        if m:
            out.append(int(m.group(1)) * 10**9 + int(m.group(2)))
        elif line.strip():
            out.append(int(line.split()[0]))
    return sorted(out)


def windows(path):
    return sorted(tuple(int(x) for x in line.split()) for line in open(path) if line.strip())


def pair(win, ev, what):
    if len(win) != len(ev):
        print("FAIL: %d windows, %d %s events" % (len(win), len(ev), what))
        sys.exit(1)
    return [(a, e, b) for (a, b), e in zip(win, ev)]


def summary(rows):
    before = [e - a for a, e, b in rows]
    after = [b - e for a, e, b in rows]
    return ("e - t0 min %d median %d, t1 - e min %d median %d (ns; windows median %d)"
            % (min(before), statistics.median(before), min(after), statistics.median(after),
               statistics.median(b - a for a, e, b in rows)))


def outside(rows):
    return [(a, e, b) for a, e, b in rows if not a <= e <= b]


def cmd_check(wpath, epath, ppath=None):
    win = windows(wpath)
    rows = pair(win, times(epath), "ltap")
    bad = outside(rows)
    for a, e, b in bad[:5]:
        print("outside: t0 %d e %d t1 %d (%+d ns)" % (a, e, b, e - a if e < a else e - b))
    if ppath:
        prow = pair(win, times(ppath), "peer")
        pbad = outside(prow)
        diff = [e - p for (_, e, _), (_, p, _) in zip(rows, prow)]
        print("peer: %d of %d inside; %s" % (len(prow) - len(pbad), len(prow), summary(prow)))
        print("ltap - peer: min %d median %d max %d ns" % (min(diff), statistics.median(diff), max(diff)))
        if pbad:
            print("(the peer's events outside their windows do not fail the test)")
    if bad:
        print("FAIL: %d of %d events outside their windows" % (len(bad), len(rows)))
        sys.exit(1)
    print("ok: %d events inside their windows; %s" % (len(rows), summary(rows)))


def cmd_bound(wpath, epath, errpath):
    said = re.findall(r"within \+-(\d+) ns", open(errpath).read())
    if not said:
        print("FAIL: ltap stated no bound (-v) in %s" % errpath)
        sys.exit(1)
    n = int(said[-1])
    rows = pair(windows(wpath), times(epath), "ltap")
    bad = [(a, e, b) for a, e, b in rows if not a - n <= e <= b + n]
    inside = len(rows) - len(outside(rows))
    for a, e, b in bad[:5]:
        print("beyond the bound: t0 %d e %d t1 %d (%+d ns)" % (a, e, b, e - a if e < a else e - b))
    if bad or n > 1000:
        print("FAIL: %d of %d events beyond +-%d ns of their windows (the promise: 1000 at most)"
              % (len(bad), len(rows), n))
        sys.exit(1)
    print("ok: %d events within +-%d ns of their windows (%d inside them); %s"
          % (len(rows), n, inside, summary(rows)))


def cmd_report(wpath, epath, minutes):
    rows = pair(windows(wpath), times(epath), "ltap")
    span = float(minutes) * 60e9
    start = rows[0][0]
    print("%8s %7s %7s %10s %10s %10s" % ("minutes", "events", "outside", "early max", "late max", "tight e-t0"))
    buckets = {}
    for r in rows:
        buckets.setdefault(int((r[0] - start) // span), []).append(r)
    for k in sorted(buckets):
        rs = buckets[k]
        early = max([a - e for a, e, b in rs if e < a] or [0])
        late = max([e - b for a, e, b in rs if e > b] or [0])
        tight = [e - a for a, e, b in rs if b - a < 1000]
        print("%8.0f %7d %7d %10d %10d %10s" % (k * float(minutes), len(rs), len(outside(rs)), early, late,
                                                 statistics.median(tight) if tight else "-"))
    bad = outside(rows)
    print("all: %d events, %d outside their windows; %s" % (len(rows), len(bad), summary(rows)))


if __name__ == "__main__":
    globals()["cmd_" + sys.argv[1]](*sys.argv[2:])

#!/usr/bin/env python3
"""bench/bigagg.py: bench/bigagg.lua's work in Python, the peer it is
measured against: the same keys counted in a dict, the top 10 by
heapq.nlargest (and by heapq.nsmallest on (-count, key): ltap's order, ties
by key), the whole table sorted and printed as ltap's report() prints it
(the same bytes: bench/bigagg.sh compares them), and the plainer
sort+print (by count, print(key, count)) of issue 29's first measure.

    python3 bench/bigagg.py report|add KEYS 1|2

Results go to standard error as one line of name=value."""
import heapq
import operator
import os
import resource
import sys
import time


def h(i):
    return i * 2654435761 % 4294967296


def reps(i):
    return (h(i) >> 16) % 8 + 1


def mem():
    """VmRSS, VmHWM in KB"""
    with open("/proc/self/status") as f:
        t = f.read()
    def field(name):
        return int(t.split(name + ":")[1].split()[0])
    return field("VmRSS"), field("VmHWM")


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def key_of(i, parts):
    x = h(i)
    return "p%d" % x if parts == 1 else ("c%d" % (x % 997), x)


def report_table(d, parts, out):
    """report(s)'s table: key columns left, count sum min avg max right;
    a count's sum is the count, min and max 1, avg 1.00"""
    rows = sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))
    head = ["key"] if parts == 1 else ["key1", "key2"]
    head += ["count", "sum", "min", "avg", "max"]
    w = [len(c) for c in head]
    for k, n in rows:
        keys = (k,) if parts == 1 else k
        for c, v in enumerate(keys):
            w[c] = max(w[c], len(str(v)))
        w[parts] = max(w[parts], len(str(n)))
        w[parts + 1] = max(w[parts + 1], len(str(n)))
    w[parts + 2] = max(w[parts + 2], 1)
    w[parts + 3] = max(w[parts + 3], 4)
    w[parts + 4] = max(w[parts + 4], 1)

    def line(cells):
        o = []
        for c, v in enumerate(cells):
            o.append(v.ljust(w[c]) if c < parts else v.rjust(w[c]))
        return "  ".join(o) + "\n"

    write = out.write
    write(line(head))
    if parts == 1:
        for k, n in rows:
            write(line((k, str(n), str(n), "1", "1.00", "1")))
    else:
        for (c, p), n in rows:
            write(line((c, str(p), str(n), str(n), "1", "1.00", "1")))


def report_mode(n_keys, parts):
    rss0, _ = mem()
    d = {}
    t0 = time.process_time()
    for r in range(1, 9):
        for i in range(n_keys):
            if reps(i) >= r:
                k = key_of(i, parts)
                d[k] = d.get(k, 0) + 1
    res = {"build_s": "%.3f" % (time.process_time() - t0)}
    rss1, _ = mem()
    res["rss_base_kb"], res["rss_built_kb"] = rss0, rss1

    reset_peak()
    t0 = time.process_time()
    top = heapq.nlargest(10, d.items(), key=operator.itemgetter(1))
    res["nlargest_s"] = "%.4f" % (time.process_time() - t0)
    t0 = time.process_time()
    top2 = heapq.nsmallest(10, d.items(), key=lambda kv: (-kv[1], kv[0]))
    res["top10_s"] = "%.4f" % (time.process_time() - t0)
    res["top10_peak_kb"] = mem()[1]
    assert len(top) == 10 and len(top2) == 10

    reset_peak()
    t0 = time.process_time()
    report_table(d, parts, sys.stdout)
    sys.stdout.flush()
    res["report_s"] = "%.3f" % (time.process_time() - t0)
    res["report_peak_kb"] = mem()[1]

    # the plainer sort+print of issue 29's table: by count, print(k, v)
    with open(os.devnull, "w") as out:
        t0 = time.process_time()
        for k, v in sorted(d.items(), key=operator.itemgetter(1), reverse=True):
            print(k, v, file=out)
        out.flush()
        res["sortprint_s"] = "%.3f" % (time.process_time() - t0)
    return res


def add_mode(n_keys, parts):
    keys = [key_of(i, parts) for i in range(n_keys)]
    d = {}
    get = d.get
    t0 = time.process_time()
    for k in keys:
        d[k] = get(k, 0) + 1
    res = {"insert_ns": "%.1f" % ((time.process_time() - t0) * 1e9 / n_keys)}
    t0 = time.process_time()
    for _ in range(4):
        for i in range(n_keys):
            k = keys[i * 7919 % n_keys]
            d[k] = get(k, 0) + 1
    res["update_ns"] = "%.1f" % ((time.process_time() - t0) * 1e9 / (4 * n_keys))
    return res


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("report", "add") or sys.argv[3] not in ("1", "2"):
        sys.exit("usage: bigagg.py report|add KEYS 1|2")
    n_keys, parts = int(sys.argv[2]), int(sys.argv[3])
    res = report_mode(n_keys, parts) if sys.argv[1] == "report" else add_mode(n_keys, parts)
    sys.stderr.write("RESULT " + " ".join("%s=%s" % kv for kv in res.items()) + "\n")


main()

#!/usr/bin/env python3
"""prom.py: HTTP helpers for the serving tests (stdlib only; loopback only).

  prom.py get URL [ACCEPT]              print the body of a GET (exit 1 unless 200)
  prom.py poll URL LINE MS              GET URL every MS ms until its body has LINE
                                        (exit 1 after 2 s); prints "polling" after
                                        the first GET, then how long it took
  prom.py targets PROM N                wait until Prometheus has N targets up
  prom.py wait PROM QUERY VALUE         wait until the instant QUERY gives VALUE
  prom.py dump-buckets PROM SELECTOR    print "le value" of the _bucket series
  prom.py compare-buckets DUMP HIST SCALE  compare such a dump with HIST ("hi count"
                                        lines of s:hist()), exported with SCALE
  prom.py check-openmetrics             parse standard input as OpenMetrics
                                        (python3-prometheus-client's strict parser)
  prom.py labels PROM SELECTOR LABEL EXPECTED
                                        wait until the series of SELECTOR are those
                                        of EXPECTED ("HEX COUNT" lines: a key's bytes
                                        and its value), LABEL read back into bytes
  prom.py check-labels SAMPLE SELECT LABEL EXPECTED
                                        the same on OpenMetrics text on standard input,
                                        through the strict parser: the samples named
                                        SAMPLE whose labels include SELECT (k=v)

Every wait polls Prometheus's HTTP API (never a bare sleep) and gives up
after TIMEOUT seconds, printing what it saw last."""
import json
import sys
import time
import urllib.parse
import urllib.request

TIMEOUT = 40.0


def get(url, accept=None):
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def api(prom, path, **params):
    url = "http://%s/api/v1/%s?%s" % (prom, path, urllib.parse.urlencode(params))
    _, _, body = get(url)
    doc = json.loads(body)
    if doc.get("status") != "success":
        raise RuntimeError("prometheus: %s" % body)
    return doc["data"]


def poll(what, fn):
    """calls fn() until it returns (True, x); returns x"""
    start, last = time.monotonic(), None
    while time.monotonic() - start < TIMEOUT:
        try:
            ok, last = fn()
            if ok:
                return last
        except OSError as e:  # Prometheus still starting
            last = str(e)
        time.sleep(0.2)  # poll
    print("timed out waiting for %s; last: %s" % (what, last))
    sys.exit(1)


def cmd_get(url, accept=None):
    status, ctype, body = get(url, accept)
    sys.stderr.write("%s %s\n" % (status, ctype))
    sys.stdout.write(body)
    sys.exit(0 if status == 200 else 1)


def cmd_poll(url, line, ms):
    start, first = time.monotonic(), True
    while time.monotonic() - start < 2.0:
        _, _, body = get(url)
        if first:
            print("polling", flush=True)  # the caller starts its workload now
            first = False
        if line in body.splitlines():
            print("ok: '%s' after %.2f s" % (line, time.monotonic() - start))
            return
        time.sleep(int(ms) / 1000)  # poll: a scrape every MS
    print("'%s' not there after 2 s of scrapes every %s ms" % (line, ms))
    sys.exit(1)


def cmd_targets(prom, n):
    def up():
        ts = api(prom, "targets")["activeTargets"]
        healthy = [t for t in ts if t["health"] == "up"]
        return len(healthy) == int(n), [(t["scrapeUrl"], t["health"], t["lastError"]) for t in ts]
    print("targets up:", poll("%s targets up" % n, up))


def instant(prom, query):
    return api(prom, "query", query=query)["result"]


def cmd_wait(prom, query, value):
    def equal():
        r = instant(prom, query)
        vals = [float(s["value"][1]) for s in r]
        return len(vals) == 1 and vals[0] == float(value), r
    poll("%s == %s" % (query, value), equal)
    print("ok: %s = %s" % (query, value))


def cmd_dump_buckets(prom, selector):
    """le value lines of a histogram's _bucket series, as Prometheus has them"""
    rows = instant(prom, selector)
    if not rows:
        print("no series for %s" % selector, file=sys.stderr)
        sys.exit(1)
    for r in rows:
        print(r["metric"]["le"], r["value"][1])


def cmd_compare_buckets(dump, hist, scale):
    """Prometheus's bucket le counts values <= le; ltap's bucket [lo, hi) of
    integers holds values <= hi - 1: every le must count exactly the
    aggregate's values below it, and every bucket the aggregate filled must
    have its bound among the le values."""
    scale = float(scale)
    agg = []
    with open(hist) as f:
        for line in f:
            hi, count = line.split()
            agg.append((float(hi), int(count)))
    total = sum(c for _, c in agg)
    prom = []
    with open(dump) as f:
        for line in f:
            le, value = line.split()
            le = float(le)
            prom.append((le if le == float("inf") else round(le / scale), int(float(value))))
    prom.sort()
    for le, got in prom:
        want = total if le == float("inf") else sum(c for hi, c in agg if hi - 1 <= le)
        if got != want:
            print("bucket le=%s: prometheus has %d, the aggregate %d" % (le, got, want))
            sys.exit(1)
    les = {le for le, _ in prom}
    for hi, c in agg:
        if c and hi != float("inf") and hi - 1 not in les:
            print("bucket [.., %g) of the aggregate has no le=%g series" % (hi, hi - 1))
            sys.exit(1)
    if float("inf") not in les or not total:
        print("no +Inf bucket, or an empty aggregate")
        sys.exit(1)
    print("ok: %d buckets match the aggregate (%d values)" % (len(prom), total))


def key_bytes(value):
    """the bytes of the key a label value stands for: ltap doubles a key's
    backslash and writes a byte that is not UTF-8 as \\xNN (runtime/expo.c),
    so this reads "\\\\" as a backslash, "\\xNN" as a byte, anything else as
    its UTF-8; a backslash before anything else is an error"""
    out, i = bytearray(), 0
    while i < len(value):
        if value[i] != "\\":
            out += value[i].encode()
            i += 1
        elif value[i + 1:i + 2] == "\\":
            out += b"\\"
            i += 2
        elif value[i + 1:i + 2] == "x" and len(value[i + 2:i + 4]) == 2:
            out.append(int(value[i + 2:i + 4], 16))
            i += 4
        else:
            raise ValueError("not a value ltap exports: %r" % value)
    return bytes(out)


def expected_keys(path):
    want = {}
    for line in open(path):
        hexkey, count = line.split()
        want[bytes.fromhex(hexkey)] = float(count)
    return want


def compare_keys(series, want):
    """series: (label value, value) pairs; None when they are want exactly"""
    got = {}
    for label, value in series:
        k = key_bytes(label)
        if k in got:
            return "two series for key %r (%r)" % (k, label)
        got[k] = float(value)
    if got != want:
        return "keys %s, wanted %s" % (sorted(got.items()), sorted(want.items()))
    return None


def cmd_labels(prom, selector, label, expected):
    want = expected_keys(expected)

    def same():
        rows = instant(prom, selector)
        why = compare_keys([(r["metric"].get(label, ""), r["value"][1]) for r in rows], want)
        return why is None, why or [r["metric"].get(label) for r in rows]
    stored = poll("the series of %s" % selector, same)
    print("ok: prometheus stores %d series of %s, one per key, exact counts: %s"
          % (len(want), selector, " ".join(repr(x) for x in stored)))


def cmd_check_labels(sample, select, label, expected):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    k, v = select.split("=", 1)
    rows = [(s.labels.get(label, ""), s.value)
            for f in text_string_to_metric_families(sys.stdin.read())
            for s in f.samples if s.name == sample and s.labels.get(k) == v]
    why = compare_keys(rows, expected_keys(expected))
    if why:
        print("the OpenMetrics parser read: %s" % why)
        sys.exit(1)
    print("ok: the strict OpenMetrics parser reads %d distinct %s series, exact counts" % (len(rows), sample))


def cmd_check_openmetrics():
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    families = list(text_string_to_metric_families(sys.stdin.read()))
    print("ok: openmetrics parses, %d families" % len(families))


if __name__ == "__main__":
    globals()["cmd_" + sys.argv[1].replace("-", "_")](*sys.argv[2:])

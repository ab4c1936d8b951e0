#!/usr/bin/env python3
"""scraper.py HOST:PORT RATE STOPFILE OUT: GET /metrics RATE times a second,
on a fixed schedule (a late request does not shift the next ones), until
STOPFILE exists; then writes "sent answered failed p50_ms p99_ms max_ms
seconds" to OUT. Loopback only, one connection per scrape (ltap answers
"Connection: close"), as Prometheus does each scrape interval."""
import os
import sys
import time
import urllib.request

addr, rate, stop, out = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
url = "http://%s/metrics" % addr
period = 1.0 / rate
sent = answered = 0
lat = []
start = time.monotonic()
while not os.path.exists(stop) and time.monotonic() - start < 600:
    due = start + sent * period
    wait = due - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    sent += 1
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read()
            if r.status == 200 and body:
                answered += 1
    except OSError:
        pass
    lat.append((time.monotonic() - t0) * 1000)
elapsed = time.monotonic() - start
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
with open(out, "w") as f:
    f.write("%d %d %d %.2f %.2f %.2f %.1f\n" % (sent, answered, sent - answered, q(0.5), q(0.99),
                                                 lat[-1] if lat else float("nan"), elapsed))

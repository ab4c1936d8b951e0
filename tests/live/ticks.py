#!/usr/bin/env python3
"""ticks.py PERIOD_MS N ERRFILE < DUE_TIMES_MS: an every() timer's ticks over a
run, checked by the rule ltap promises (docs/lua-api.md, runtime/loop.h),
not by the machine's speed. Timers are items of the event merge on the trace
clock and the run's end (-d) is a timer of its own, run after every other
timer due at the same time; so the N ticks due at PERIOD, 2 PERIOD, ...,
N PERIOD before (or at) the end each run, at exactly their due time, in
order. The one way a tick does not run is the loop being a whole period
behind the clock: it then runs once, at the last tick due, for the ticks it
missed, which are counted and said on stderr ("missed K ticks"). So: the
ticks that ran are due times of the period, increasing, the last at
N * PERIOD, and they and the ones missed make N."""
import re
import sys


def main():
    period, n, errfile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    ran = [int(round(float(line))) for line in sys.stdin if line.strip()]
    with open(errfile) as f:
        missed = sum(int(k) for k in re.findall(r"missed (\d+) ticks", f.read()))
    print(f"ticks at {ran} ms, {missed} missed; {n} due every {period} ms")
    assert ran, "no tick ran"
    assert all(t % period == 0 and 0 < t <= n * period for t in ran), "a tick not at its due time"
    assert ran == sorted(set(ran)), "ticks out of order"
    assert ran[-1] == n * period, "the last tick due before the end did not run"
    assert len(ran) + missed == n, f"{len(ran)} ran and {missed} missed, not {n}"


if __name__ == "__main__":
    main()

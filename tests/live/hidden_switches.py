#!/usr/bin/env python3
"""hidden_switches.py DATA COMM: how many times a task named COMM was
switched in, between its markers getpgid(7771) and getpgid(7772), by a task
whose own sched_switch events never reached the recording.

DATA is `perf record -a --switch-events -e sched:sched_switch -e
syscalls:sys_enter_getpgid`. perf's context-switch records of a switch in
are written in the switched-in task's own context and name the task before
it (PERF_RECORD_SWITCH_CPU_WIDE IN, prev pid/tid), so they show a switch
that a task hidden from tracing made (a VM's agent can be: its own events
reach no ring, perf's, ltap's or bpftrace's), which no sched_switch event
shows. A task that has exited makes its last switch with its pid gone:
the record names it by its process (tid -1, pid its tgid), so it is hidden
when no thread of that process was seen switching out. A checker for
sched.test, not a test."""
import re
import subprocess
import sys

data, comm = sys.argv[1], sys.argv[2]
out = subprocess.run(["perf", "script", "-i", data, "--show-switch-events", "-F", "comm,pid,tid,cpu,time,event,trace"],
                     capture_output=True, text=True).stdout
seen, seen_procs, ins, window, on = set(), set(), [], [None, None], False
for line in out.splitlines():
    m = re.match(r"\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+(.*)$", line)
    if not m:
        continue
    name, pid, t, rest = m.group(1), int(m.group(2)), float(m.group(4)), m.group(5)
    if rest.startswith("sched:sched_switch:"):
        seen.add(int(re.search(r"prev_pid=(\d+)", rest).group(1)))
        seen_procs.add(pid)
    elif rest.startswith("syscalls:sys_enter_getpgid:") and name == comm:
        arg = int(rest.split("pid:")[1], 16)
        if arg == 7771:
            window[0] = t
        elif arg == 7772:
            window[1] = t
    elif rest.startswith("PERF_RECORD_SWITCH_CPU_WIDE IN") and name == comm:
        prev = re.search(r"prev pid/tid:\s*(-?\d+)/(-?\d+)", rest)
        ins.append((t, int(prev.group(2)), int(prev.group(1))))
if None in window:
    sys.exit(f"hidden_switches.py: no markers of {comm} in {data}")
def hidden(tid, pid):
    return pid not in seen_procs if tid == -1 else tid != 0 and tid not in seen
print(sum(1 for t, tid, pid in ins if window[0] < t < window[1] and hidden(tid, pid)))

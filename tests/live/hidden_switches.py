#!/usr/bin/env python3
"""hidden_switches.py DATA COMM: how many times a task named COMM was
switched in, between its markers getpgid(7771) and getpgid(7772), by a
switch that no sched_switch event shows.

DATA is `perf record -a --switch-events -e sched:sched_switch -e
syscalls:sys_enter_getpgid`. perf's context-switch records of a switch in
are written in the switched-in task's own context (PERF_RECORD_SWITCH_CPU_WIDE
IN), so they show every switch, also one that a task hidden from tracing
made (a VM's agent can be: its own events reach no ring, perf's, ltap's or
bpftrace's). On a CPU, a switch's sched_switch event comes before its
records; a switch in of COMM's task is hidden when the CPU's last
sched_switch before it did not switch to that task. Any record perf lost
fails the checker: then a missing event proves nothing. A checker for
sched.test, not a test."""
import re
import subprocess
import sys

data, comm = sys.argv[1], sys.argv[2]
out = subprocess.run(["perf", "script", "-i", data, "--show-switch-events", "--show-lost-events",
                      "-F", "comm,pid,tid,cpu,time,event,trace"], capture_output=True, text=True).stdout
to, hidden, window = {}, [], [None, None]  # to: per CPU, the task its last sched_switch switched to
for line in out.splitlines():
    if "PERF_RECORD_LOST" in line:
        sys.exit(f"hidden_switches.py: perf lost records in {data}: {line.strip()}")
    m = re.match(r"\s*(.+?)\s+-?\d+/(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(.*)$", line)
    if not m:
        continue
    name, tid, cpu, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), float(m.group(4)), m.group(5)
    if rest.startswith("sched:sched_switch:"):
        to[cpu] = int(re.search(r"next_pid=(\d+)", rest).group(1))
    elif rest.startswith("syscalls:sys_enter_getpgid:") and name == comm:
        arg = int(rest.split("pid:")[1], 16)
        if arg == 7771:
            window[0] = t
        elif arg == 7772:
            window[1] = t
    elif rest.startswith("PERF_RECORD_SWITCH_CPU_WIDE IN") and name == comm and to.get(cpu) != tid:
        hidden.append(t)
if None in window:
    sys.exit(f"hidden_switches.py: no markers of {comm} in {data}")
print(sum(1 for t in hidden if window[0] < t < window[1]))

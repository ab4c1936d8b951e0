#!/usr/bin/python3
"""engine.py: runs ltap's live tests, written as directive files (*.test).

    engine.py [--build DIR] FILE.test [NAME...]   the tests of FILE (or those named)
    engine.py --list FILE.test                    their names

Every test of a file runs in order under the machine-wide live-test lock, with
one work directory for the whole file; each is checked for its expectations,
for sanitizer reports and for the kernel's tracing state, which must be as
before it. The directives and how to write, run and debug a test:
tests/README.md. Exit status: 0 all ran passed, 1 a failure, 2 a bad file,
77 every test skipped (ctest's SKIP_RETURN_CODE).
"""

import argparse
import errno
import fcntl
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

T = "/sys/kernel/tracing"
LOCK = "/run/lock/ltap-live-tests.lock"
DEFAULT_TIMEOUT = 60
LOCK_WAIT = 1200
# what a test may take beyond its TIMEOUT: ending its processes (SIGTERM,
# 5 s, SIGKILL), the kernel state settling (2 s), its CHECKs
TEST_SLACK = 15
BLOCK_INDENT = "    "
# a name ltap gives what it makes in the kernel: instance ltap-PID, uprobe
# group ltap_PID, command cgroup ltap-PID-CHILD; a process's N-th host alive
# at once (libltap) names its instance ltap-PID-N and its group ltap_PID_N
OWNER = re.compile(r"\bltap[-_](\d+)(?:[-_]\d+)?\b")

# directive -> kind: "one" (at most once), "many" (repeatable)
DIRECTIVES = {
    "NAME": "one", "USES": "many", "REQUIRES": "many", "TIMEOUT": "one", "FILE": "many",
    "BEFORE": "many", "WORKLOAD": "many", "WORKLOAD_READY": "many",
    "RUN": "one", "READY": "one", "AFTER": "many", "SIGNAL": "one",
    "EXIT": "one", "CHECK": "many",
    "EXPECT": "many", "EXPECT_REGEX": "many", "EXPECT_NONE": "many",
    "EXPECT_COUNT": "many", "EXPECT_FILE": "many",
    "STDERR": "many", "STDERR_REGEX": "many", "STDERR_NONE": "many",
    "STDERR_COUNT": "many",
}
CHECKS = ("EXIT", "CHECK", "EXPECT", "EXPECT_REGEX", "EXPECT_NONE", "EXPECT_COUNT",
          "EXPECT_FILE", "STDERR", "STDERR_REGEX", "STDERR_NONE", "STDERR_COUNT")


def _cmd_ok(*argv):
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def _own_cgroups():
    """controller -> this process's cgroup path ("" for cgroup v2)"""
    own = {}
    for l in read("/proc/self/cgroup").splitlines():
        _, ctls, rel = l.split(":", 2)
        for c in ctls.split(","):
            own[c] = rel
    return own


def _memory_cgroup_v2():
    rel = _own_cgroups().get("")
    d = "/sys/fs/cgroup" + (rel if rel and rel != "/" else "")
    try:
        return rel is not None and "memory" in read(d + "/cgroup.subtree_control").split() and \
            os.access(d, os.W_OK)
    except OSError:
        return False


def _memory_cgroup_v1():
    rel = _own_cgroups().get("memory")
    return rel is not None and os.access("/sys/fs/cgroup/memory" + rel, os.W_OK)


def _no_ltap_package():
    """dpkg knows none of ltap's packages, or each removed with its files (purged)"""
    for p in ("ltap", "libltap0", "libltap-dev", "lua-ltap"):
        try:
            r = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status}", p], capture_output=True, text=True)
        except OSError:
            return True
        if r.returncode == 0 and r.stdout not in ("", "not-installed"):
            return False
    return True


# REQUIRES NAME (or !NAME): what a test needs of this machine, with the
# reason a skip gives. Tools make.sh installs are not here: without them a
# test fails rather than skips.
REQUIREMENTS = {
    "root": (lambda: os.geteuid() == 0, "not root"),
    "kprobes": (lambda: os.path.exists(T + "/kprobe_events"), "kernel has no kprobes"),
    "copy_trace_marker": (lambda: os.path.exists(T + "/options/copy_trace_marker"),
                          "kernel has no options/copy_trace_marker"),
    "group_dead": (lambda: "group_dead" in read(T + "/events/sched/sched_process_exit/format"),
                   "kernel traces sched_process_exit after exit_mm (no group_dead field)"),
    "perf": (lambda: _cmd_ok("perf", "version"), "perf is not installed"),
    "memory_cgroup": (lambda: _memory_cgroup_v2() or _memory_cgroup_v1(),
                      "no memory cgroup to make a child in (v2 or v1)"),
    "memory_cgroup_v1": (_memory_cgroup_v1, "no v1 memory cgroup to make a child in"),
    "kvm": (lambda: os.access("/dev/kvm", os.R_OK | os.W_OK) and os.path.isdir(T + "/events/kvm"),
            "no /dev/kvm (or no kvm tracepoints): this machine cannot run a KVM guest"),
    "qemu": (lambda: shutil.which("qemu-system-x86_64") is not None,
             "qemu-system-x86_64 is not installed (Debian: qemu-system-x86)"),
    # a test that installs ltap's package leaves alone one installed by someone else
    "no_ltap_package": (_no_ltap_package,
                        "an ltap package is installed already (dpkg -s ltap libltap0 libltap-dev lua-ltap): not this test's to replace"),
}


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


class FileError(Exception):
    pass


class Test:
    def __init__(self, path, line):
        self.path, self.line = path, line
        self.d = []             # (directive, value, line) in file order
        self.first = {}         # directive -> value, for the "one" kind

    def get(self, name, default=None):
        return self.first.get(name, default)

    def all(self, name):
        return [v for d, v, _ in self.d if d == name]

    @property
    def name(self):
        return self.first["NAME"]


def parse(path):
    """the tests of a directive file; FileError names file:line"""
    tests, cur = [], None
    lines = read(path).split("\n")
    i = 0
    while i < len(lines):
        raw, no = lines[i], i + 1
        i += 1
        if raw.startswith("\t"):
            raise FileError(f"{path}:{no}: a tab: blocks are indented by four spaces")
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw.startswith(" "):
            raise FileError(f"{path}:{no}: an indented line that is no directive's block "
                            "(a block follows its directive, indented by four spaces)")
        m = re.match(r"^([A-Z_]+)(?: (.*))?$", raw)
        if not m or m.group(1) not in DIRECTIVES:
            raise FileError(f"{path}:{no}: unknown directive '{raw.split()[0]}'")
        name, value = m.group(1), m.group(2)
        # a block: the following lines indented by four spaces (blank lines
        # inside it kept), the indentation removed
        block = []
        while i < len(lines) and (lines[i].startswith(BLOCK_INDENT) or
                                  (not lines[i].strip() and any(l.startswith(BLOCK_INDENT) for l in
                                   _until_directive(lines, i)))):
            block.append(lines[i][len(BLOCK_INDENT):] if lines[i].strip() else "")
            i += 1
        if block:
            if name == "FILE":
                if not value:
                    raise FileError(f"{path}:{no}: FILE needs a name")
                value = (value, "\n".join(block) + "\n")
            elif value is not None:
                raise FileError(f"{path}:{no}: {name} has both a value and a block")
            else:
                value = "\n".join(block)
        elif name == "FILE":
            raise FileError(f"{path}:{no}: FILE {value or ''} has no block (its content, indented)")
        elif value is None:
            value = ""
        if name == "NAME":
            if not re.match(r"^[a-z0-9_]+$", value or ""):
                raise FileError(f"{path}:{no}: NAME '{value}': lower case letters, digits and _")
            if any(t.name == value for t in tests):
                raise FileError(f"{path}:{no}: a second test named '{value}'")
            cur = Test(path, no)
            tests.append(cur)
        elif cur is None:
            raise FileError(f"{path}:{no}: {name} before the first NAME")
        if DIRECTIVES[name] == "one" and name in cur.first:
            raise FileError(f"{path}:{no}: a second {name} in test '{cur.name}'")
        cur.first.setdefault(name, value)
        cur.d.append((name, value, no))
    for i, t in enumerate(tests):
        t.earlier = {x.name for x in tests[:i]}
        _check_test(t)
    return tests


def _until_directive(lines, i):
    """the lines from i up to the next unindented non-blank one"""
    j = i
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith(" ")):
        j += 1
    return lines[i:j]


def _check_test(t):
    where = f"{t.path}:{t.line}: test '{t.name}'"
    if "RUN" not in t.first:
        raise FileError(f"{where} has no RUN")
    if not any(d in CHECKS for d, _, _ in t.d):
        raise FileError(f"{where} checks nothing (EXIT, EXPECT..., STDERR..., CHECK)")
    for d, v, no in t.d:
        if d == "USES" and v not in t.earlier:
            raise FileError(f"{t.path}:{no}: USES {v}: no test of that name before this one")
        if d == "REQUIRES" and v.lstrip("!") not in REQUIREMENTS:
            raise FileError(f"{t.path}:{no}: unknown requirement '{v}' ({', '.join(sorted(REQUIREMENTS))})")
        if d == "EXIT" and not re.match(r"^!?[0-9]+$", v):
            raise FileError(f"{t.path}:{no}: EXIT '{v}': a status, or !0 for any failure")
        if d == "TIMEOUT" and not re.match(r"^[0-9]+$", v):
            raise FileError(f"{t.path}:{no}: {d} '{v}' is not a number")
        if d in ("EXPECT_COUNT", "STDERR_COUNT") and not re.match(r"^[0-9]+ ", v):
            raise FileError(f"{t.path}:{no}: {d} takes a count, then a regex")
        if d == "SIGNAL" and v not in ("INT", "TERM", "QUIT", "HUP"):
            raise FileError(f"{t.path}:{no}: SIGNAL {v}: INT, TERM, QUIT or HUP")
        if d == "WORKLOAD_READY" and not any(x == "WORKLOAD" for x, _, n in t.d if n < no):
            raise FileError(f"{t.path}:{no}: WORKLOAD_READY before any WORKLOAD")
        if d in ("EXPECT_REGEX", "EXPECT_NONE", "STDERR_REGEX", "STDERR_NONE", "READY", "WORKLOAD_READY",
                 "EXPECT_COUNT", "STDERR_COUNT"):
            rx = v.split(" ", 1)[1] if d.endswith("_COUNT") else v
            try:
                re.compile(rx)
            except re.error as e:
                raise FileError(f"{t.path}:{no}: bad regex '{rx}': {e}")
    if any(d in t.first for d in ("AFTER", "SIGNAL", "READY")) and "\n" in t.first["RUN"]:
        raise FileError(f"{where}: with AFTER, SIGNAL or READY, RUN is one command (it is exec'd)")


def test_timeout(t):
    return int(t.get("TIMEOUT", os.environ.get("LTAP_TEST_TIMEOUT", DEFAULT_TIMEOUT)))


def file_budget(tests):
    """the longest a file can take: the lock wait, then each test to its
    TIMEOUT and slack; ctest's TIMEOUT for the file (tests/CMakeLists.txt),
    so that ctest never ends a file the engine would have ended itself with
    a message"""
    return LOCK_WAIT + sum(test_timeout(t) + TEST_SLACK for t in tests) + 30


# ---------------------------------------------------------------- the kernel

def snapshot():
    """the tracing state a test must leave as it found it, one item a line"""
    items = []
    try:
        items += [f"instance {n}" for n in sorted(os.listdir(T + "/instances"))]
    except OSError as e:
        items.append(f"instances: {e.strerror}")
    for f in ("set_event", "set_event_pid", "tracing_on", "uprobe_events", "dynamic_events"):
        try:
            items += [f"{f}: {l}" for l in read(f"{T}/{f}").splitlines()]
        except OSError:
            pass
    evdir = T + "/events"
    for sysname in sorted(os.listdir(evdir)) if os.path.isdir(evdir) else []:
        sd = f"{evdir}/{sysname}"
        if not os.path.isdir(sd):
            continue
        for ev in sorted(os.listdir(sd)):
            try:
                v = read(f"{sd}/{ev}/filter").strip()
            except OSError:
                continue
            if v and v != "none":
                items.append(f"filter {sysname}:{ev}: {v}")
    base = cgroup2_base()
    if base:
        items += [f"cgroup {base}/{n}" for n in sorted(os.listdir(base)) if n.startswith("ltap-")]
    return items


def cgroup2_base():
    """this process's cgroup v2 directory: where ltap makes command cgroups"""
    mnt = next((l.split()[1] for l in read("/proc/mounts").splitlines() if l.split()[2] == "cgroup2"), None)
    own = next((l[3:].strip() for l in read("/proc/self/cgroup").splitlines() if l.startswith("0::")), None)
    if not mnt or own is None:
        return None
    return mnt + ("" if own == "/" else own)


def ltap_alive(pid):
    """as ltap itself decides (instance.c): a process whose comm is ltap"""
    try:
        return read(f"/proc/{pid}/comm").startswith("ltap")
    except OSError:
        return False


def state_diff(before, after, ours):
    """what the test changed, and notes on what others changed meanwhile.

    Items named after an ltap (OWNER) this test did not start belong to
    other ltaps of the machine: another checkout's running ltap comes and
    goes, a dead one's leftover is reaped by the next ltap's start (ours
    too). They are left out of the comparison, except a leftover that
    appeared during the test and whose ltap is dead: that is a leak, ours
    if the test made it by hand, another's if an ltap that held no lock
    died unclean meanwhile; the message says which cannot be told apart."""
    def owner(item):
        m = OWNER.search(item)
        return int(m.group(1)) if m else None

    def mine(item):
        o = owner(item)
        return o is None or o in ours

    b = [x for x in before if mine(x)]
    a = [x for x in after if mine(x)]
    problems, notes = [], []
    if b != a:
        import difflib
        problems.append("kernel tracing state changed:\n" +
                        "\n".join(difflib.unified_diff(b, a, "before", "after", lineterm="", n=1)))
    seen_before = set(before)
    for x in after:
        o = owner(x)
        if o is None or o in ours or x in seen_before:
            continue
        if ltap_alive(o):
            notes.append(f"ignored (a running ltap {o} this test did not start): {x}")
        else:
            problems.append(f"left behind: {x}: made during this test, and its ltap {o} is dead; "
                            f"no ltap of this test had pid {o}: either the test made it itself, or "
                            f"another ltap on this machine (one that did not hold {LOCK}) died "
                            f"without cleaning up while this test ran")
    for x in before:
        o = owner(x)
        if o is not None and o not in ours and x not in after:
            notes.append(f"gone during the test, not ours (its ltap {o} "
                         f"{'ended' if not ltap_alive(o) else 'runs'}): {x}")
    return problems, notes


# ---------------------------------------------------------------- running

class Failure(Exception):
    pass


class Skip(Exception):
    pass


def lock(wait):
    fd = os.open(LOCK, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except OSError as e:
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise
    ino = os.fstat(fd).st_ino
    holder = "?"
    for l in read("/proc/locks").splitlines():
        f = l.split()
        # "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"
        if len(f) > 5 and f[1] == "FLOCK" and f[5].endswith(f":{ino}"):
            holder = f[4]
            try:
                holder += ": " + read(f"/proc/{f[4]}/cmdline").replace("\0", " ").strip()
            except OSError:
                pass
            break
    print(f"waiting for the live-test lock {LOCK} (taken by pid {holder})", flush=True)
    # a blocking flock, as the other checkouts' run.sh waits (flock -w): a
    # poller would lose the lock to them at every release; SIGALRM wakes it
    # each minute to say it still waits, and at the end of the wait
    class Tick(Exception):
        pass

    def tick(signum, frame):
        raise Tick()

    old = signal.signal(signal.SIGALRM, tick)
    start = time.monotonic()
    try:
        while True:
            left = wait - (time.monotonic() - start)
            if left <= 0:
                raise Failure(f"no live-test lock after {wait} s (last taken by pid {holder})")
            signal.alarm(max(1, min(60, int(left))))
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                print(f"took the live-test lock after {time.monotonic() - start:.0f} s", flush=True)
                return fd
            except Tick:
                print(f"still waiting for the live-test lock ({time.monotonic() - start:.0f} s)", flush=True)
            finally:
                signal.alarm(0)
    except BaseException:
        os.close(fd)
        raise
    finally:
        signal.signal(signal.SIGALRM, old)


def session_pids(sid):
    """the processes of session sid (the engine starts each command in a
    new session: sid is the command's pid)"""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = read(f"/proc/{d}/stat")
        except OSError:
            continue
        # after "(comm)": state ppid pgrp session
        f = stat[stat.rindex(")") + 2:].split()
        if int(f[3]) == sid:
            pids.append(int(d))
    return pids


def kill_session(p, grace=5.0):
    """ends a command and what it left in its session: SIGTERM first (ltap
    cleans the kernel on it), SIGKILL after grace; by pid, only processes of
    the session the engine made for it"""
    if p.poll() is None:
        for pid in session_pids(p.pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    for pid in session_pids(p.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    p.wait()


def tail(path, n=40):
    try:
        lines = read(path).splitlines()
    except OSError:
        return "(none)"
    if len(lines) > n:
        lines = [f"... ({len(lines) - n} lines before)"] + lines[-n:]
    return "\n".join(lines) if lines else "(empty)"


class FileRun:
    def __init__(self, path, env):
        self.path = path
        self.suite = os.path.splitext(os.path.basename(path))[0]
        self.base = env
        self.dir = tempfile.mkdtemp(prefix=f"ltap-live-{self.suite}.")
        os.chmod(self.dir, 0o755)  # tests run ltap as nobody on files in WORK
        self.work = os.path.join(self.dir, "work")
        self.san = os.path.join(self.dir, "san")
        os.mkdir(self.work)
        os.mkdir(self.san)
        self.pids = os.path.join(self.dir, "ltap-pids")
        open(self.pids, "w").close()
        # the ltap of every test: tests/progs/pidnote, which notes its pid
        # (exec keeps it) so the state check knows which ltaps were the test's
        self.shim = os.path.join(env["PROGS"], "pidnote")
        if not os.access(self.shim, os.X_OK):
            raise Failure(f"no {self.shim}: build the tests (tests/progs/pidnote.c)")

    def our_pids(self):
        return {int(x) for x in read(self.pids).split()}

    def env(self, t, extra):
        e = dict(os.environ)
        src = self.base["SRCDIR"]
        e.update(LTAP=self.shim, LTAP_BIN=self.base["LTAP"], LTAP_PID_LOG=self.pids, PROGS=self.base["PROGS"], SRCDIR=src,
                 DATA=src + "/tests/data", LIVE=src + "/tests/live", WORK=self.work, T=T,
                 OUT=f"{self.work}/{t.name}.out", ERR=f"{self.work}/{t.name}.err",
                 GATE=f"{self.work}/{t.name}.gate",
                 LSAN_OPTIONS=f"suppressions={src}/tests/lsan.supp:print_suppressions=0",
                 ASAN_OPTIONS=f"log_path={self.san}/asan:detect_leaks=1",
                 UBSAN_OPTIONS=f"print_stacktrace=1:log_path={self.san}/ubsan")
        e.update(extra)
        return e

    def subst(self, s, env, where):
        def one(m):
            k = m.group(1)
            if k not in env or k not in TEMPLATE_VARS and not re.match(r"^WORKLOAD_(PID|OUT)[0-9]*$", k):
                raise Failure(f"{where}: unknown {{{{{k}}}}} (or not known yet at this step)")
            return env[k]
        return re.sub(r"\{\{([A-Z_0-9]+)\}\}", one, s)

    # one test -------------------------------------------------------------
    def run(self, t):
        for r in t.all("REQUIRES"):
            neg = r.startswith("!")
            ok, why = REQUIREMENTS[r.lstrip("!")]
            have = bool(ok())
            if have == neg:
                raise Skip(why if not neg else f"not for a machine where this holds: {r[1:]}")
        problems, procs = [], []
        timeout = test_timeout(t)
        deadline = time.monotonic() + timeout
        env = self.env(t, {})
        started_pids = self.our_pids()
        before = snapshot()
        for f in (env["OUT"], env["ERR"], env["GATE"]):
            if os.path.exists(f):
                os.unlink(f)
        run, cmd = None, None
        try:
            for d, v, no in t.d:
                if d == "FILE":
                    name, body = v
                    with open(os.path.join(self.work, self.subst(name, env, f"line {no}")), "w") as f:
                        f.write(self.subst(body, env, f"line {no}"))
            for d, v, no in t.d:
                if d == "BEFORE":
                    self.step("BEFORE", v, no, env, deadline)
            nwork = 0
            for d, v, no in t.d:
                if d == "WORKLOAD":
                    nwork += 1
                    log = f"{self.work}/{t.name}.workload{nwork}"
                    p = self.spawn(self.subst(v, env, f"line {no}"), env, log, log)
                    p.log, p.what = log, f"WORKLOAD (line {no})"
                    procs.append(p)
                    suffix = "" if nwork == 1 else str(nwork)
                    env["WORKLOAD_PID" + suffix], env["WORKLOAD_OUT" + suffix] = str(p.pid), log
                elif d == "WORKLOAD_READY":
                    p = procs[-1]
                    self.wait_line([p.log], v, p, deadline, f"{p.what}'s line /{v}/")
            cmd = self.subst(t.get("RUN"), env, f"line {t.line}")
            # ltap's readiness matters: steps run or a gate opens once it is attached
            live = any(d in t.first for d in ("AFTER", "SIGNAL", "READY")) or \
                any(d == "WORKLOAD" and "{{GATE}}" in v for d, v, _ in t.d)
            if live:
                cmd = "exec " + cmd
            run = self.spawn(cmd, env, env["OUT"], env["ERR"])
            run.t0 = time.monotonic()
            if live:
                rx = t.get("READY", r"attached in [0-9.]+ ms")
                self.wait_line([env["OUT"], env["ERR"]], rx, run, deadline, f"RUN's line /{rx}/")
                open(env["GATE"], "w").close()
                for d, v, no in t.d:
                    if d == "AFTER":
                        self.step("AFTER", v, no, env, deadline)
                if "SIGNAL" in t.first:
                    for p in procs:
                        self.wait_exit(p, deadline, f"{p.what} to end before SIGNAL")
                    run.send_signal(getattr(signal, "SIG" + t.get("SIGNAL")))
            self.wait_exit(run, deadline, "RUN to end")
            # an upper bound of any time ltap measured of its run
            env["RUN_SECONDS"] = f"{time.monotonic() - run.t0:.6f}"
        except Failure as e:
            problems.append(str(e))
        finally:
            if run is not None:
                kill_session(run)
            for p in procs:
                kill_session(p)
        rc = run.returncode if run is not None else None
        env["RC"] = str(rc)
        if rc is not None and not problems:
            problems += self.checks(t, env, rc, deadline)
        problems += self.sanitizer_reports()
        ours = self.our_pids() - started_pids
        after = self.settled_snapshot(ours)
        state, notes = state_diff(before, after, ours)
        problems += state
        for n in notes:
            print(f"note: {n}")
        if problems:
            ctx = [f"--- command: {cmd or t.get('RUN')}",
                   f"--- exit status: {rc if rc is None or rc >= 0 else 'killed by signal %d' % -rc}",
                   f"--- stdout ({env['OUT']}):\n{tail(env['OUT'])}",
                   f"--- stderr ({env['ERR']}):\n{tail(env['ERR'])}"]
            ctx += [f"--- {p.what} output ({p.log}):\n{tail(p.log, 15)}" for p in procs]
            raise Failure("\n".join(problems + ctx))

    def spawn(self, cmd, env, out, err):
        o = open(out, "w")
        e = o if err == out else open(err, "w")
        try:
            # a new session: the test's processes in their own group, which a
            # time-out ends as a whole
            return subprocess.Popen(["bash", "-c", "set -o pipefail\n" + cmd], env=env, cwd=self.work,
                                    stdin=subprocess.DEVNULL, stdout=o, stderr=e, start_new_session=True)
        finally:
            o.close()
            if e is not o:
                e.close()

    def step(self, what, v, no, env, deadline):
        cmd = self.subst(v, env, f"line {no}")
        log = f"{env['WORK']}/step.log"
        p = self.spawn(cmd, env, log, log)
        try:
            self.wait_exit(p, deadline, f"{what} (line {no}) to end")
        finally:
            kill_session(p)
        if p.returncode != 0:
            raise Failure(f"{what} (line {no}) exited {p.returncode}: {cmd}\n{tail(log, 20)}")

    def wait_exit(self, p, deadline, what):
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise Failure(f"timed out waiting for {what}")

    def wait_line(self, files, rx, p, deadline, what):
        r = re.compile(rx)
        while True:
            for f in files:
                try:
                    if any(r.search(l) for l in read(f).splitlines()):
                        return
                except OSError:
                    pass
            if p.poll() is not None:
                raise Failure(f"{what}: the process ended (status {p.returncode}) before printing it")
            if time.monotonic() > deadline:
                raise Failure(f"timed out waiting for {what}")
            time.sleep(0.01)  # poll: the line is printed by another process

    def checks(self, t, env, rc, deadline):
        out = read(env["OUT"])
        err = read(env["ERR"])
        problems = []
        want_rc = t.get("EXIT", "0")
        if (rc == 0) if want_rc == "!0" else (rc != int(want_rc)):
            problems.append(f"EXIT: expected {'a failure' if want_rc == '!0' else want_rc}, got {rc}")
        for d, v, no in t.d:
            if d not in CHECKS or d == "EXIT":
                continue
            v = self.subst(v, env, f"line {no}") if isinstance(v, str) else v
            text, stream = (err, "stderr") if d.startswith("STDERR") else (out, "stdout")
            kind = d.split("_", 1)[1] if "_" in d else ""
            lines = text.splitlines()
            if d == "CHECK":
                log = f"{env['WORK']}/check.log"
                p = self.spawn(v, env, log, log)
                try:
                    self.wait_exit(p, deadline, f"CHECK (line {no}) to end")
                except Failure as e:
                    problems.append(str(e))
                finally:
                    kill_session(p)
                shown = read(log).rstrip("\n")
                if p.returncode != 0:
                    problems.append(f"CHECK (line {no}) failed (exit {p.returncode}):\n{v}\n{shown}")
                elif shown:
                    print(shown)
            elif kind in ("", "FILE"):
                if kind == "FILE":
                    try:
                        want = read(v)
                    except OSError as e:
                        problems.append(f"{d} (line {no}): cannot read {v}: {e.strerror}")
                        continue
                    got = text
                else:
                    # the lines given, each ended by a newline: exactly
                    want, got = (v + "\n" if v else ""), text
                if want != got:
                    import difflib
                    diff = "\n".join(difflib.unified_diff(want.split("\n"), got.split("\n"), "expected",
                                                          stream, lineterm=""))
                    problems.append(f"{d} (line {no}): {stream} differs:\n{diff}")
            elif kind == "REGEX":
                if not any(re.search(v, l) for l in lines):
                    problems.append(f"{d} (line {no}): no line of {stream} matches /{v}/")
            elif kind == "NONE":
                bad = [l for l in lines if re.search(v, l)]
                if bad:
                    problems.append(f"{d} (line {no}): {stream} has a line matching /{v}/: {bad[0]}")
            elif kind == "COUNT":
                n, rx = v.split(" ", 1)
                got_n = sum(1 for l in lines if re.search(rx, l))
                if got_n != int(n):
                    problems.append(f"{d} (line {no}): {got_n} lines of {stream} match /{rx}/, expected {n}")
        return problems

    def sanitizer_reports(self):
        found = sorted(os.listdir(self.san))
        reports = [x for x in found if not x.startswith("seen.")]
        out = []
        for r in reports:
            out.append(f"sanitizer report {r}:\n{read(os.path.join(self.san, r))}")
            os.rename(os.path.join(self.san, r), os.path.join(self.san, "seen." + r))
        return out

    def settled_snapshot(self, ours, grace=2.0):
        """the state after the test, once what its ltaps' guardians undo (a
        SIGKILLed ltap's, within 1 s) is undone"""
        end = time.monotonic() + grace
        while True:
            s = snapshot()
            pending = [x for x in s if (m := OWNER.search(x)) and int(m.group(1)) in ours]
            if not pending or time.monotonic() > end:
                return s
            time.sleep(0.05)  # poll: the guardian is another process


TEMPLATE_VARS = {"LTAP", "LTAP_BIN", "PROGS", "SRCDIR", "DATA", "LIVE", "WORK", "T", "OUT", "ERR", "GATE", "RC", "RUN_SECONDS"}


def main():
    ap = argparse.ArgumentParser(description="runs ltap's live tests (tests/README.md)")
    ap.add_argument("--build", help="a build directory: LTAP=DIR/ltap, PROGS=DIR/tests")
    ap.add_argument("--list", action="store_true", help="list the tests of FILE")
    ap.add_argument("--keep", action="store_true", help="keep the work directory, even when all pass")
    ap.add_argument("--ctest-timeout", action="store_true",
                    help="print the longest FILE can take, lock wait included (ctest's TIMEOUT)")
    ap.add_argument("file")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    try:
        tests = parse(a.file)
    except FileError as e:
        print(f"engine: {e}")
        return 2
    except OSError as e:
        print(f"engine: cannot read {a.file}: {e.strerror}")
        return 2
    if a.ctest_timeout:
        print(file_budget(tests))
        return 0
    if a.list:
        for t in tests:
            print(t.name)
        return 0
    unknown = [n for n in a.names if n not in {t.name for t in tests}]
    if unknown:
        print(f"engine: {a.file} has no test {', '.join(unknown)} (--list)")
        return 2
    env = {}
    if a.build:
        b = os.path.abspath(a.build)
        env.update(LTAP=b + "/ltap", PROGS=b + "/tests")
    env.setdefault("SRCDIR", os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")))
    for k in ("LTAP", "PROGS", "SRCDIR"):
        env[k] = env.get(k) or os.environ.get(k)
        if not env[k]:
            print(f"engine: {k} is not set (or give --build DIR)")
            return 2
    env["LTAP"] = os.path.abspath(env["LTAP"])
    if a.names:
        # and what they use: the files earlier tests made (USES)
        want, by = set(a.names), {t.name: t for t in tests}
        for t in reversed(tests):
            if t.name in want:
                want.update(t.all("USES"))
        tests = [t for t in tests if t.name in want]

    waited = time.monotonic()
    try:
        lockfd = lock(int(os.environ.get("LTAP_LOCK_WAIT", LOCK_WAIT)))
    except Failure as e:
        print(f"FAIL {a.file}: {e}")
        return 1
    try:
        fr = FileRun(a.file, env)
    except Failure as e:
        print(f"FAIL {a.file}: {e}")
        os.close(lockfd)
        return 1
    passed, failed, skipped = [], [], []
    t0 = time.monotonic()
    try:
        for t in tests:
            full = f"{fr.suite}.{t.name}"
            print(f"[ RUN  ] {full}", flush=True)
            s = time.monotonic()
            try:
                fr.run(t)
                passed.append(t.name)
                print(f"[   OK ] {full} ({time.monotonic() - s:.2f} s)")
            except Skip as e:
                skipped.append(t.name)
                print(f"[ SKIP ] {full}: {e}")
            except Failure as e:
                failed.append(t.name)
                print(f"FAIL: {e}")
                print(f"[ FAIL ] {full} ({t.path}:{t.line})")
            except Exception:
                # the engine's own mistake: said as one, the other tests still run
                import traceback
                failed.append(t.name)
                print(f"FAIL: the engine failed on this test:\n{traceback.format_exc()}")
                print(f"[ FAIL ] {full} ({t.path}:{t.line})")
            sys.stdout.flush()
    finally:
        os.close(lockfd)
    summary = (f"{fr.suite}: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped "
               f"in {time.monotonic() - t0:.1f} s (after {t0 - waited:.1f} s for the lock)" +
               (f"; failed: {' '.join(failed)}" if failed else ""))
    print(summary)
    # LTAP_LIVE_SUMMARY=FILE: each file's line appended there, which ctest
    # shows only for a failure: a whole run's times and lock waits
    if os.environ.get("LTAP_LIVE_SUMMARY"):
        with open(os.environ["LTAP_LIVE_SUMMARY"], "a") as f:
            f.write(summary + "\n")
    if failed or a.keep:
        print(f"work directory kept: {fr.dir}")
    else:
        shutil.rmtree(fr.dir, ignore_errors=True)
    if failed:
        return 1
    return 77 if not passed and skipped else 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/bash
# ltap offcpu against the program's own clocks: progs/offwork blocks for
# known times in known functions (a sleeper 10 ms in func_A and 30 ms in
# func_B, a writer sleeping 10 ms before each byte it writes to a pipe, a
# reader blocked on that pipe) and measures each wait itself. Per function,
# ltap's off-CPU time (the folded stacks through it) is within 1% of the
# program's, system-wide, under -c and under -p, 5 runs of each in a row;
# bpftrace (sched_switch with user stacks, keyed by stack) on the same
# workload agrees; the off-wake graph joins the reader's wait to the
# writer's stack; the Lua script doing the same with counts:stack() and
# counts:add(KEY, N) agrees too.
. "$(dirname "$0")/lib.sh"

N=5 # rounds: the sleeper 5 x (10 + 30) ms, the writer and the reader 20 x 10 ms
FUNCS="func_A func_B writer_sleep reader_wait"

# per_function FOLDED: "func us" for each function, the stacks blocked in
# it (before a waker's "--")
per_function() {
  awk -v fs="$FUNCS" 'BEGIN { n = split(fs, f, " ") }
    { s = ";" $1 ";"; sub(/;--;.*/, ";", s); for (i = 1; i <= n; i++) if (index(s, ";" f[i] ";")) t[f[i]] += $NF }
    END { for (i = 1; i <= n; i++) print f[i], t[f[i]] + 0 }' "$1"
}

# within WHAT GOT(func us lines) WANT(the program's "func ns" lines):
# every function within 1% of the program's own time
within() {
  awk -v what="$1" 'FNR == NR { got[$1] = $2; next }
    $1 in got { want = $2 / 1000; d = got[$1] - want; line = line sprintf(" %s %.2f/%.2f ms (%+.2f%%)", $1, got[$1] / 1000, want / 1000, 100 * d / want)
      if (d < 0 ? -d > want / 100 : d > want / 100) bad = 1; n++ }
    END { print (bad || n != 4 ? "FAIL: " : "ok: ") what ":" line; exit bad || n != 4 }' "$2" "$3"
}

# a run of ltap offcpu under -c, -p or -a, its folded stacks in WORK/MODE.I.folded
run_mode() { # MODE I
  local mode=$1 i=$2 f=$WORK/$1.$2.folded
  rm -f $WORK/gate
  if [ $mode == c ]; then
    run_ltap $WORK/out $WORK/err offcpu -c "$PROGS/offwork $N" --folded $f
    [ $RC -eq 0 ] || fail "ltap offcpu -c: exit $RC"
    grep -E '^(func_|writer_|reader_)' $WORK/out > $WORK/prog
  else
    $PROGS/offwork $N @$WORK/gate > $WORK/prog 2> $WORK/prog.$mode.$i &
    local w=$!
    STARTED+=($w)
    wait_for $WORK/prog.$mode.$i '^waiting for'
    # a file of this run's own: the redirection truncates it in the child,
    # after this shell may have read the last run's "attached"
    "$LTAP" -v offcpu $([ $mode == p ] && echo "-p $w" || echo -a) --folded $f > $WORK/out 2> $WORK/err.$mode.$i &
    local l=$!
    STARTED+=($l)
    wait_attached $WORK/err.$mode.$i
    touch $WORK/gate
    wait $w
    kill -INT $l
    wait $l || { cat $WORK/err.$mode.$i; fail "ltap offcpu -$mode: exit $?"; }
  fi
  per_function $f > $WORK/got
  within "-$mode run $i" $WORK/got $WORK/prog || fail "ltap offcpu -$mode run $i"
}

for i in 1 2 3 4 5; do
  for mode in a c p; do run_mode $mode $i; done
done

# the report: the longest wait first, the reader's; the SVG in the io
# palette (blue) with us as the count
run_ltap $WORK/out $WORK/err offcpu -c "$PROGS/offwork $N" --top 5 --svg $WORK/off.svg
expect_grep "report header" '^# Off-CPU time: [0-9.]+ s in [0-9]+ stacks \(states S and D\), top 5$' $WORK/out
expect_grep "the writer's stack, leaf first" '^    writer_sleep$' $WORK/out
python3 - $WORK/off.svg <<'PY' || fail "off-CPU SVG"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.find("s:g[@id='frames']", ns)
names = {g.get("data-name"): g for g in frames}
assert "func_B" in names and "reader_wait" in names, sorted(names)
title = names["func_B"].find("s:title", ns).text
assert " us, " in title, title
r, g, b = map(int, names["func_B"].get("data-fill")[4:-1].split(","))
assert b > r and b > g, (r, g, b)       # the io palette: blue
assert root.find("s:text[@id='title']", ns).text == "Off-CPU Time Flame Graph"
print("ok: SVG: blue frames, hover in us:", title)
PY

# --wakers: the reader's wait joined to the stack of its waker, the writer
# writing the pipe byte; -m leaves the shorter blocks out
run_ltap $WORK/out $WORK/err offcpu -c "$PROGS/offwork $N" --wakers -m 5ms --folded $WORK/wake.folded
grep -E '^(func_|writer_|reader_)' $WORK/out > $WORK/prog
grep -E '^reader;.*;reader_wait;.*;--;.*;anon_pipe_write_\[k\];.*;writer [0-9]+$' $WORK/wake.folded > $WORK/joined \
  || { cat $WORK/wake.folded; fail "no reader stack joined to the writer's"; }
awk '{ t += $NF } END { exit !(t > 0) }' $WORK/joined
per_function $WORK/wake.folded > $WORK/got
within "--wakers -m 5ms" $WORK/got $WORK/prog || fail "off-wake times"

# the same by a script of ltap's own API, system-wide: a stack kept at the
# switch out (counts:stack), its time added at the switch in (counts:add(KEY,
# N)); a switch in not seen (a task hidden from tracing made it) ends at the
# last switch seen on the CPU, as ltap offcpu does
cat > $WORK/off.lua <<'LUA'
local counts, held, since, last = ltap.stackcount(), {}, {}, {}
local function done(tid, t) counts:add(held[tid], t - since[tid]) held[tid] = nil end
probe("sched:sched_switch", {stack = true, filter = "prev_state & 3"}, function(e)
  if held[e.prev_pid] then done(e.prev_pid, last[e.cpu]) end
  held[e.prev_pid], since[e.prev_pid] = counts:stack(e), e.time
  last[e.cpu] = e.time
end)
probe("sched:sched_switch", "next_pid != 0", function(e)
  last[e.cpu] = e.time
  if held[e.next_pid] then done(e.next_pid, e.time) end
end)
finish(function()
  local out = io.open(arg[1], "w")
  for stack, ns in pairs(counts:folded()) do out:write(stack .. " " .. ns // 1000 .. "\n") end
  out:close()
end)
LUA
rm -f $WORK/gate
$PROGS/offwork $N @$WORK/gate > $WORK/prog 2> $WORK/lua.prog.err &
w=$!
STARTED+=($w)
wait_for $WORK/lua.prog.err '^waiting for'
"$LTAP" -v -a $WORK/off.lua $WORK/lua.folded > $WORK/lua.out 2> $WORK/lua.err &
l=$!
STARTED+=($l)
wait_attached $WORK/lua.err
touch $WORK/gate
wait $w
kill -INT $l
wait $l || { cat $WORK/lua.err; fail "off.lua: exit $?"; }
per_function $WORK/lua.folded > $WORK/got
within "a script with counts:stack()" $WORK/got $WORK/prog || fail "the script's times"

# bpftrace on the same workload: sched_switch, user stacks as the key, its
# times per stack (ns); its stacks are addresses here (its symbols fail on
# this binary), named from the process's maps and nm while it waits
cat > $WORK/off.bt <<'BT'
tracepoint:sched:sched_switch
/pid == $1 && (args->prev_state & 3)/
{
  @start[args->prev_pid] = nsecs;
  @stk[args->prev_pid] = ustack;
}
tracepoint:sched:sched_switch
/@start[args->next_pid]/
{
  @ns[@stk[args->next_pid]] = sum(nsecs - @start[args->next_pid]);
  delete(@start[args->next_pid]);
  delete(@stk[args->next_pid]);
}
tracepoint:syscalls:sys_enter_getpgid /args->pid == 7779/ { exit(); }
BEGIN { printf("ready\n"); }
END { clear(@start); clear(@stk); }
BT
rm -f $WORK/gate $WORK/hold
$PROGS/offwork $N @$WORK/gate $WORK/hold > $WORK/prog 2> $WORK/bt.prog.err &
w=$!
STARTED+=($w)
wait_for $WORK/bt.prog.err '^waiting for'
timeout 60 bpftrace $WORK/off.bt $w > $WORK/bt.out 2> $WORK/bt.err &
b=$!
STARTED+=($b)
wait_for $WORK/bt.out '^ready$'
touch $WORK/gate
wait_for $WORK/bt.prog.err '^holding$'
# its end by an event it handles in its loop (getpgid(7779): a marker
# nothing else calls), not by a signal: once a SIGINT left it hanging
python3 -c 'import os
try: os.getpgid(7779)
except OSError: pass'
wait $b || { cat $WORK/bt.err; fail "bpftrace: exit $?"; }
python3 - $WORK/bt.out $w $PROGS/offwork "$FUNCS" > $WORK/got <<'PY' || fail "bpftrace's stacks"
import re, subprocess, sys
out, pid, exe, funcs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split()
base = None
for line in open(f"/proc/{pid}/maps"):
    a, _, off, _, _, *path = line.split()
    if path and path[0].endswith("/offwork") and int(off, 16) == 0:
        base = int(a.split("-")[0], 16)
        break
syms = sorted((int(a, 16), n) for a, t, n in (l.split() for l in subprocess.run(
    ["nm", "-n", "--defined-only", exe], capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 3)
    if t in "tT")
def name(addr):
    o, best = addr - base, None
    for a, n in syms:
        if a > o:
            break
        best = n
    return best
t = {f: 0 for f in funcs}
for stack, ns in re.findall(r"@ns\[\n(.*?)\]: (\d+)", open(out).read(), re.S):
    frames = [name(int(l.strip(), 16)) if l.strip().startswith("0x") else l.strip().split("+")[0]
              for l in stack.splitlines() if l.strip()]
    for f in funcs:
        if f in frames:
            t[f] += int(ns) // 1000
for f in funcs:
    print(f, t[f])
PY
touch $WORK/hold
wait $w
within "bpftrace, the same workload" $WORK/got $WORK/prog || { cat $WORK/bt.out; fail "bpftrace's times"; }
echo "ok: offcpu done"

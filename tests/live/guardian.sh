#!/bin/bash
# Whatever way ltap ends, its instance (events, filters, pid list) and its
# uprobes are gone within one second, with no ltap run in between: SIGKILL,
# SIGQUIT, SIGKILL while the script grows (as the OOM killer does), a real
# memory-cgroup OOM kill, os.exit() in a timer, a handler and a finish hook,
# SIGKILL 5-30 ms after the start, ^C/^\ and kill -9 sent to ltap's whole
# process group, `timeout -s KILL`; for a tracepoint probe with a filter and
# -p, a u: probe, a stack=true probe and a profile.
. "$(dirname "$0")/lib.sh"
P=$PROGS/uprobe_target
snapshot > $WORK/base
sleep 60 & sleeper=$!; STARTED+=($sleeper) # workload: the -p target

declare -A SCRIPT PROBE
PROBE[tracepoint]="probe('syscalls:sys_enter_getppid', 'common_pid > 0', function(e) n = n + 1 end)"
PROBE[uprobe]="probe('u:$P:f', function(e) n = n + 1 if EXIT_IN_HANDLER then os.exit(6) end end)"
PROBE[stack]="probe('sched:sched_switch', {stack = true}, function(e) n = n + 1 end)"
PROBE[profile]="profile('99hz', function(e) n = n + 1 end)"
for kind in tracepoint uprobe stack profile; do
  cat > $WORK/$kind.lua <<LUA
n = 0
${PROBE[$kind]}
local t = {}
local function grow()
  for i = 1, 100000 do t[#t + 1] = {i} end
  if #t == 1000000 then io.stderr:write("grown to a million tables\n") end
end
if arg[1] == "grow" then every("10ms", grow) end
if arg[1] == "exit-timer" then after("50ms", function() os.exit(5) end) end
if arg[1] == "exit-finish" then finish(function() os.exit(4) end) end
if arg[1] == "exit-handler" then EXIT_IN_HANDLER = true end
finish(function() print("finish ran") end)
LUA
done
# -p: a pid list to undo; and stack and profile runs see no fork of the
# system (ltap_symbols_fork trips UBSan on one, a bug of its own)
opts() { [ "$1" != uprobe ] && echo "-p $sleeper"; return 0; }

# clean_within_1s PID WHAT: ltap PID ended just now; within one second its
# instance and probes are gone, and then the whole tracing state is the base
clean_within_1s() {
  local end=$(( $(date +%s%N) + 1000000000 ))
  while [ -d $T/instances/ltap-$1 ] || grep -q "ltap_$1/" $T/uprobe_events; do
    [ $(date +%s%N) -lt $end ] || { ls $T/instances; cat $T/uprobe_events; fail "$2: ltap $1's instance or uprobes still there 1 s after its end"; }
    sleep 0.02 # poll
  done
  snapshot > $WORK/now
  diff $WORK/base $WORK/now || fail "$2: tracing state not as before"
  echo "ok: $2: clean"
}

# guardian_said PID KIND: waits for the guardian's line on what it undid for
# ltap PID (it says so once it undid everything). Every live start of any
# ltap reaps what dead ltaps left, and other checkouts run ltap without the
# live-test lock (a script test, ltap flamegraph FILE): when one of them
# took it first, the guardian finds nothing and says nothing, and the step
# is tried again; a guardian that never says fails every time.
guardian_said() {
  local want="guardian: ltap $1 ended without cleaning up: removed instance ltap-$1"
  [ "$2" != uprobe ] || want="$want, removed probes of ltap_$1"
  for _ in $(seq 250); do
    grep -qF "$want" $WORK/err && { echo "ok: the guardian said: $want"; return 0; }
    sleep 0.02 # poll
  done
  echo "note: ltap $1's guardian said nothing: another ltap of the machine reaped first?"
  return 1
}

# start KIND ARG...: ltap in the background with the kind's script, attached
start() {
  local kind=$1; shift
  rm -f $WORK/err
  "$LTAP" -v $(opts $kind) $WORK/$kind.lua "$@" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  wait_for $WORK/err "attached in"
}

# guardian.sh oom: the OOM killer of a memory cgroup (v2 memory.max or v1
# limit_in_bytes; the engine skips it where there is none to make)
if [ "${1:-}" == oom ]; then
  rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
  cg=/sys/fs/cgroup$rel/ltap-oom-$$; limit=memory.max
  if ! grep -qw memory /sys/fs/cgroup$rel/cgroup.subtree_control 2>/dev/null; then
    rel=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
    cg=/sys/fs/cgroup/memory$rel/ltap-oom-$$; limit=memory.limit_in_bytes
  fi
  mkdir $cg || fail "cannot make the memory cgroup $cg"
  echo $((200 << 20)) > $cg/$limit
  rm -f $WORK/err
  sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$0\" -v --max-memory 8G \"\$@\"" "$LTAP" $WORK/tracepoint.lua grow \
    > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  set +e; wait $l; RC=$?; set -e
  expect_eq "killed by the cgroup's OOM killer" 137 "$RC"
  clean_within_1s $l "OOM kill"
  for _ in $(seq 50); do rmdir $cg 2>/dev/null && break; sleep 0.02; done # poll
  [ ! -d $cg ] || fail "the test's cgroup $cg is still there"
  exit 0
fi

for kind in tracepoint uprobe stack profile; do
  for try in 1 2 3 4 5; do
    start $kind
    if [ $kind == tracepoint ]; then
      # the instance exists with its filter and pid list: the guardian has work
      grep -q "common_pid > 0" $T/instances/ltap-$l/events/syscalls/sys_enter_getppid/filter || fail "no filter to undo"
      grep -qw $sleeper $T/instances/ltap-$l/set_event_pid || fail "no pid list to undo"
    fi
    [ $kind != uprobe ] || grep -q "ltap_$l/" $T/uprobe_events || fail "no uprobe to undo"
    kill -KILL $l; wait $l || true
    clean_within_1s $l "$kind, SIGKILL"
    # (a profile alone has no instance: nothing for the guardian to say)
    { [ $kind == profile ] || guardian_said $l $kind; } && break
    [ $try -lt 5 ] || fail "$kind, SIGKILL: the guardian never said what it undid"
  done

  start $kind
  kill -QUIT $l; set +e; wait $l; RC=$?; set -e
  expect_eq "$kind, SIGQUIT ends the run as SIGTERM does" "0 finish ran" "$RC $(cat $WORK/out)"
  clean_within_1s $l "$kind, SIGQUIT"

  start $kind grow
  wait_for $WORK/err "^grown to a million tables$" # the kill comes with the script's memory high
  kill -KILL $l; wait $l || true
  clean_within_1s $l "$kind, SIGKILL while the script grows"

  start $kind exit-timer
  set +e; wait $l; RC=$?; set -e
  expect_eq "$kind, os.exit(5) in a timer: its code, no finish hook" "5 " "$RC $(cat $WORK/out)"
  clean_within_1s $l "$kind, os.exit in a timer"

  start $kind exit-finish
  kill -INT $l; set +e; wait $l; RC=$?; set -e
  expect_eq "$kind, os.exit(4) in a finish hook: its code, the next hook skipped" "4 " "$RC $(cat $WORK/out)"
  clean_within_1s $l "$kind, os.exit in a finish hook"
done

# os.exit in an event handler
start uprobe exit-handler
$P 3 0 > /dev/null
set +e; wait $l; RC=$?; set -e
expect_eq "os.exit(6) in a handler" "6 " "$RC $(cat $WORK/out)"
clean_within_1s $l "os.exit in a handler"

# SIGKILL 5-10 ms after the start, and later: while the guardian starts,
# while the instance and the uprobes are made
undone=0
for ms in 5 6 7 8 9 10 15 20 30 50 80 120; do
  for kind in tracepoint uprobe; do
    "$LTAP" $(opts $kind) $WORK/$kind.lua > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
    sleep 0.$(printf %03d $ms) # workload: the SIGKILL lands at this time after the start, not at a readiness
    kill -KILL $l; wait $l || true
    clean_within_1s $l "$kind, SIGKILL ${ms} ms after the start"
    if grep -q "guardian: ltap $l ended without cleaning up" $WORK/err; then undone=$((undone + 1)); fi
  done
done
[ $undone -gt 0 ] || fail "no early SIGKILL found anything to undo: the trials test nothing"
echo "ok: the guardian undid something after $undone of the 24 early SIGKILLs"

# a terminal sends ^C and ^\ to the whole foreground group, kill -9 %1 and
# timeout -s KILL SIGKILL to the whole group: the guardian is not in it
for sig in INT QUIT KILL; do
  rm -f $WORK/err
  setsid "$LTAP" -v $WORK/uprobe.lua > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  wait_for $WORK/err "attached in"
  kill -$sig -- -$l; wait $l || true
  clean_within_1s $l "SIG$sig to ltap's process group"
done
rm -f $WORK/err
# timeout -s KILL: its child, ltap, killed once attached (3 s: well after)
for try in 1 2 3 4 5; do
  rm -f $WORK/err
  timeout -s KILL 3 "$LTAP" -v $WORK/uprobe.lua > $WORK/out 2> $WORK/err & t=$!
  wait_for $WORK/err "attached in"
  l=$(awk -v t=$t '$4 == t { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -1)
  [ -n "$l" ] || fail "no child of timeout $t"
  set +e; wait $t; RC=$?; set -e
  expect_eq "timeout -s KILL" 137 "$RC"
  clean_within_1s $l "timeout -s KILL"
  guardian_said $l uprobe && break
  [ $try -lt 5 ] || fail "timeout -s KILL: the guardian never said what it undid"
done

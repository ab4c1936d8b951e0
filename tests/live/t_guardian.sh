# Whatever way ltap ends, its instance (events, filters, pid list) and its
# uprobes are gone within one second, with no ltap run in between: SIGKILL,
# SIGQUIT, SIGKILL while the script grows (as the OOM killer does), a real
# memory-cgroup OOM kill, os.exit() in a timer, a handler and a finish hook,
# SIGKILL 5-30 ms after the start, ^C/^\ and kill -9 sent to ltap's whole
# process group, `timeout -s KILL`; for a tracepoint probe with a filter and
# -p, a u: probe, a stack=true probe and a profile.
P=$PROGS/uprobe_target
snapshot > $WORK/base
sleep 60 & sleeper=$!; STARTED+=($sleeper)

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
local function grow() for i = 1, 100000 do t[#t + 1] = {i} end end
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
    sleep 0.02
  done
  snapshot > $WORK/now
  diff $WORK/base $WORK/now || fail "$2: tracing state not as before"
  echo "ok: $2: clean"
}

# start KIND ARG...: ltap in the background with the kind's script, attached
start() {
  local kind=$1; shift
  rm -f $WORK/err
  "$LTAP" -v $(opts $kind) $WORK/$kind.lua "$@" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  wait_for $WORK/err "attached in"
}

for kind in tracepoint uprobe stack profile; do
  start $kind
  if [ $kind == tracepoint ]; then
    # the instance exists with its filter and pid list: the guardian has work
    grep -q "common_pid > 0" $T/instances/ltap-$l/events/syscalls/sys_enter_getppid/filter || fail "no filter to undo"
    grep -qw $sleeper $T/instances/ltap-$l/set_event_pid || fail "no pid list to undo"
  fi
  [ $kind != uprobe ] || grep -q "ltap_$l/" $T/uprobe_events || fail "no uprobe to undo"
  kill -KILL $l; wait $l || true
  clean_within_1s $l "$kind, SIGKILL"
  case $kind in
    tracepoint|stack) expect_grep "the guardian said" "guardian: ltap $l ended without cleaning up: removed instance ltap-$l" $WORK/err ;;
    uprobe) expect_grep "the guardian said" "guardian: ltap $l ended without cleaning up: removed instance ltap-$l, removed probes of ltap_$l" $WORK/err ;;
  esac

  start $kind
  kill -QUIT $l; set +e; wait $l; RC=$?; set -e
  expect_eq "$kind, SIGQUIT ends the run as SIGTERM does" "0 finish ran" "$RC $(cat $WORK/out)"
  clean_within_1s $l "$kind, SIGQUIT"

  start $kind grow
  sleep 0.2 # growing: the kill comes with the script's memory high
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
    sleep 0.$(printf %03d $ms)
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
set +e; timeout -s KILL 0.5 "$LTAP" $WORK/uprobe.lua > $WORK/out 2> $WORK/err; RC=$?; set -e
expect_eq "timeout -s KILL" 137 "$RC"
l=$(sed -n 's/.*guardian: ltap \([0-9]*\) ended without cleaning up.*/\1/p' $WORK/err)
[ -n "$l" ] || { sleep 0.5; l=$(sed -n 's/.*guardian: ltap \([0-9]*\) ended.*/\1/p' $WORK/err); }
[ -n "$l" ] || fail "timeout -s KILL: the guardian said nothing"
clean_within_1s $l "timeout -s KILL"

# the OOM killer of a memory cgroup (v2 memory.max or v1 limit_in_bytes)
rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
cg=/sys/fs/cgroup$rel/ltap-oom-$$; limit=memory.max
if ! grep -qw memory /sys/fs/cgroup$rel/cgroup.subtree_control 2>/dev/null; then
  rel=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
  cg=/sys/fs/cgroup/memory$rel/ltap-oom-$$; limit=memory.limit_in_bytes
fi
if [ -n "$rel" ] && mkdir $cg 2>/dev/null; then
  echo $((200 << 20)) > $cg/$limit
  rm -f $WORK/err
  sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$0\" -v --max-memory 8G \"\$@\"" "$LTAP" $WORK/tracepoint.lua grow \
    > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  set +e; wait $l; RC=$?; set -e
  expect_eq "killed by the cgroup's OOM killer" 137 "$RC"
  clean_within_1s $l "OOM kill"
  for _ in $(seq 50); do rmdir $cg 2>/dev/null && break; sleep 0.02; done
  [ ! -d $cg ] || fail "the test's cgroup $cg is still there"
else
  echo "skip: OOM kill: no memory cgroup to make here"
fi

# -c with shell syntax, or a command that forks: at the end of the run every
# process of the command's tree is gone, not only the first one: after -d,
# after SIGINT, after the script's exit(), and after the command itself ended
# leaving a process behind. spin_tree spins and leaves a re-parented
# grandchild spinning too; it writes both pids when they run.
gone() { # gone PID: no such process, or a zombie waiting for its reaper
  [ ! -e /proc/$1 ] || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null
}
check_tree_gone() { # check_tree_gone WHAT PIDFILE
  local p
  [ -s "$2" ] || fail "$1: spin_tree never wrote its pids"
  for p in $(cat "$2"); do STARTED+=("$p"); done # killed at the test's end if ltap left them
  for p in $(cat "$2"); do
    gone "$p" || { ps -o pid,ppid,stat,comm -p "$p"; fail "$1: process $p of the command is still running"; }
  done
  echo "ok: $1: the whole tree is gone ($(tr '\n' ' ' < "$2"))"
  ! ls -d /sys/fs/cgroup/unified/ltap-* /sys/fs/cgroup/ltap-* 2>/dev/null | grep -q . || fail "$1: a command cgroup was left"
}
SPIN="$PROGS/spin_tree"
NOP='probe("sched:sched_process_exec", function() end)'

# -d: the run ends first; "spin_tree; true" runs under /bin/sh
run_ltap $WORK/out $WORK/err -d 1s -c "$SPIN $WORK/p1; true" -e "$NOP"
expect_eq "-d exit" 0 "$RC"
check_tree_gone "-d 1s" $WORK/p1

# SIGINT once the tree runs
"$LTAP" -c "$SPIN $WORK/p2; true" -e "$NOP" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_for $WORK/p2 .
kill -INT $l; set +e; wait $l; rc=$?; set -e
expect_eq "SIGINT exit" 0 $rc
check_tree_gone "SIGINT" $WORK/p2

# the script's exit() once the tree runs (a timer polls for the pid file)
run_ltap $WORK/out $WORK/err -c "$SPIN $WORK/p3" -e "$NOP
every('20ms', function() local f = io.open('$WORK/p3') if f then f:close() exit(0) end end)"
expect_eq "exit() exit" 0 "$RC"
check_tree_gone "exit()" $WORK/p3

# the command ends by itself, leaving its tree behind: the run ends with it,
# and so does what it left
run_ltap $WORK/out $WORK/err -c "sh -c '$SPIN $WORK/p4 & while [ ! -s $WORK/p4 ]; do sleep 0.01; done'" -e "$NOP"
expect_eq "command end exit" 0 "$RC"
check_tree_gone "command ended" $WORK/p4

# ltap.measure (ltap stat) too: the measured command's leftovers go
run_ltap $WORK/out $WORK/err stat -e task-clock -- sh -c "$SPIN $WORK/p5 & while [ ! -s $WORK/p5 ]; do sleep 0.01; done"
expect_eq "stat exit" 0 "$RC"
check_tree_gone "ltap stat" $WORK/p5

# ltap SIGKILLed: its guardian ends the tree (the command's cgroup is on its
# list from before the command was moved into it), with no ltap run needed
"$LTAP" -c "$SPIN $WORK/p6" -e "$NOP" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_for $WORK/p6 .
for p in $(cat $WORK/p6); do STARTED+=("$p"); done
kill -KILL $l; set +e; wait $l; set -e
for _ in $(seq 100); do all=1; for p in $(cat $WORK/p6); do gone $p || all=0; done; [ $all = 1 ] && break; sleep 0.01; done
wait_for $WORK/err "guardian: ltap $l ended without cleaning up: .*killed and removed cgroup"
check_tree_gone "after a SIGKILLed ltap, by its guardian within 1 s" $WORK/p6

# a command cgroup left by an ltap whose guardian died too is ended at the
# next start: made here by hand, in the name a dead ltap (pid above pid_max) would use
mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
base=$mnt$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup | sed 's,^/$,,')
cg=$base/ltap-999999999-1
if [ -n "$mnt" ] && [ -d "$base" ] && mkdir $cg 2>/dev/null; then
  run_ltap $WORK/out $WORK/err -v -d 10ms -e "$NOP"
  [ ! -d $cg ] || { rmdir $cg; fail "a dead ltap's command cgroup was not removed at the next start"; }
  expect_grep "stale command ended" "ended the command of a dead ltap \(ltap-999999999-1" $WORK/err
else
  echo "skip: stale cgroup reaping: cannot make $cg (no writable cgroup v2 here)"
fi

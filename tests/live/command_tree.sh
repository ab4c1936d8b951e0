#!/bin/bash
# -c with shell syntax, or a command that forks: at the end of the run every
# process of the command's tree is gone, not only the first one: after -d,
# after SIGINT, after the script's exit(), and after the command itself ended
# leaving a process behind. spin_tree spins and leaves a re-parented
# grandchild spinning too; it writes both pids when they run.
. "$(dirname "$0")/lib.sh"
gone() { # gone PID: no such process, or a zombie waiting for its reaper
  [ ! -e /proc/$1 ] || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null
}
gone_all() { # gone_all PIDFILE: every process of it gone
  local p
  for p in $(cat "$1"); do gone "$p" || return 1; done
}
check_tree_gone() { # check_tree_gone WHAT PIDFILE
  local p
  [ -s "$2" ] || fail "$1: spin_tree never wrote its pids"
  for p in $(cat "$2"); do STARTED+=("$p"); done # killed at the test's end if ltap left them
  for p in $(cat "$2"); do
    gone "$p" || { ps -o pid,ppid,stat,comm -p "$p"; fail "$1: process $p of the command is still running"; }
  done
  echo "ok: $1: the whole tree is gone ($(tr '\n' ' ' < "$2"))"
  # a command cgroup "ltap-PID-CHILD" whose ltap is gone was left (a running
  # ltap's, another checkout's, is its own)
  for d in /sys/fs/cgroup/unified/ltap-* /sys/fs/cgroup/ltap-*; do
    [ -d "$d" ] || continue
    p=${d##*/ltap-}; p=${p%%-*}
    case "$(cat /proc/$p/comm 2>/dev/null)" in ltap*) ;; *) fail "$1: a command cgroup was left: $d" ;; esac
  done
}
# guardian_of PID: the pid of ltap PID's guardian: an "ltap-guardian" (init's
# child: it is forked twice) holding a pidfd of PID
guardian_of() {
  local d
  for d in /proc/[0-9]*; do
    [ "$(cat $d/comm 2>/dev/null)" == ltap-guardian ] || continue
    grep -qsx "Pid:[[:space:]]*$1" $d/fdinfo/* && { echo ${d#/proc/}; return 0; }
  done
  fail "ltap $1 has no guardian"
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
run_ltap $WORK/out $WORK/err -c "sh -c '$SPIN $WORK/p4 & while [ ! -s $WORK/p4 ]; do sleep 0.01; done'" -e "$NOP" # poll (the command waits for its child's pids)
expect_eq "command end exit" 0 "$RC"
check_tree_gone "command ended" $WORK/p4

# ltap.measure (ltap stat) too: the measured command's leftovers go
run_ltap $WORK/out $WORK/err stat -e task-clock -- sh -c "$SPIN $WORK/p5 & while [ ! -s $WORK/p5 ]; do sleep 0.01; done" # poll (as above)
expect_eq "stat exit" 0 "$RC"
check_tree_gone "ltap stat" $WORK/p5

# A dead ltap's command is also ended by the start of any other ltap (every
# live start reaps what dead ltaps left), and other checkouts' script tests
# run ltap without the live-test lock: where the tree went but the ltap
# expected to end it said nothing, another ltap took it first; tried
# again (one that does not do its job fails every time).

# ltap SIGKILLed: its guardian ends the tree, and removes its cgroup
for try in 1 2 3 4 5; do
  "$LTAP" -c "$SPIN $WORK/p6" -e "$NOP" > $WORK/out 2> $WORK/err6 & l=$!; STARTED+=($l)
  wait_for $WORK/p6 .
  for p in $(cat $WORK/p6); do STARTED+=("$p"); done
  kill -KILL $l; set +e; wait $l; set -e
  # the guardian says what it undid once it undid all (the instance may be
  # busy for a while)
  for _ in $(seq 250); do
    grep -q "guardian: ltap $l ended" $WORK/err6 && break
    sleep 0.02 # poll
  done
  grep -q "guardian: ltap $l ended" $WORK/err6 && break
  [ $try -lt 5 ] && gone_all $WORK/p6 || break
  echo "note: ltap $l's command was ended by another ltap of the machine before its guardian; once more"
  rm -f $WORK/p6
done
expect_grep "the guardian ended the command" "guardian: ltap $l ended without cleaning up: .*killed and removed cgroup [^ ]*/ltap-$l-" $WORK/err6
check_tree_gone "after a SIGKILLed ltap, by its guardian" $WORK/p6

# ltap and its guardian SIGKILLed (as the OOM killer may take both): the
# tree outlives them in its cgroup; the next ltap ends it
for try in 1 2 3 4 5; do
  "$LTAP" -c "$SPIN $WORK/p7" -e "$NOP" > $WORK/out 2> $WORK/err7 & l=$!; STARTED+=($l)
  wait_for $WORK/p7 .
  for p in $(cat $WORK/p7); do STARTED+=("$p"); done
  g=$(guardian_of $l)
  kill -KILL $g; kill -KILL $l; set +e; wait $l; set -e
  run_ltap $WORK/out $WORK/err -v -d 10ms -e "$NOP"
  grep -q "ended the command of a dead ltap (ltap-$l-" $WORK/err && break
  [ $try -lt 5 ] && gone_all $WORK/p7 || break
  echo "note: ltap $l's command was ended by another ltap of the machine before the next start; once more"
  rm -f $WORK/p7
done
expect_grep "stale command ended" "ended the command of a dead ltap \(ltap-$l-" $WORK/err
check_tree_gone "after a SIGKILLed ltap and guardian, at the next start" $WORK/p7

# a command cgroup left by an ltap whose guardian died too, made here by
# hand in the name a dead ltap (pid above pid_max) would use: ended at the
# next start
mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
base=$mnt$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup | sed 's,^/$,,')
cg=$base/ltap-999999999-1
if [ -n "$mnt" ] && [ -d "$base" ] && mkdir $cg 2>/dev/null; then
  for try in 1 2 3 4 5; do
    run_ltap $WORK/out $WORK/err -v -d 10ms -e "$NOP"
    [ ! -d $cg ] || { rmdir $cg; fail "a dead ltap's command cgroup was not removed at the next start"; }
    grep -q "ended the command of a dead ltap (ltap-999999999-1" $WORK/err && break
    [ $try -lt 5 ] && mkdir $cg || break
    echo "note: $cg was removed by another ltap of the machine first; once more"
  done
  expect_grep "a dead ltap's cgroup made by hand: ended at the next start" "ended the command of a dead ltap \(ltap-999999999-1" $WORK/err
else
  echo "skip: stale cgroup reaping: cannot make $cg (no writable cgroup v2 here)"
  echo "ok: a dead ltap's cgroup made by hand: skipped"
fi

#!/bin/bash
# What a dead ltap left without a guardian (an older ltap; a guardian killed
# with it) is removed by the next run that changes the kernel, and by `ltap list`:
# instances "ltap-<pid>" and uprobe groups "ltap_<pid>" whose pid is no
# running ltap. Those of a running ltap stay. The leftovers are made by hand,
# under a pid above pid_max, which no process can have.
. "$(dirname "$0")/lib.sh"
P=$PROGS/uprobe_target
dead=999999999
# never enabled, so any offset inside the file will do for the kernel
off=0x100
leave_stale() {
  [ -d $T/instances/ltap-$dead ] || mkdir $T/instances/ltap-$dead
  grep -q "ltap_$dead/p_f_1" $T/uprobe_events || echo "p:ltap_$dead/p_f_1 $P:$off" >> $T/uprobe_events
  [ -d $T/instances/ltap-$dead ] && grep -q "ltap_$dead/p_f_1" $T/uprobe_events || fail "could not make the stale leftovers"
}

# reap_run ARGS...: leaves the leftovers, then runs ltap ARGS. Every live
# start of any ltap reaps what dead ltaps left, and other checkouts' script
# tests run ltap without the live-test lock: when the leftovers went but
# this run did not say it removed both, another ltap took one or both
# first; tried again (a run that does not say what it removed fails every
# time).
reap_run() {
  for try in 1 2 3 4 5; do
    leave_stale
    run_ltap $WORK/out $WORK/err "$@"
    if [ ! -d $T/instances/ltap-$dead ] && ! grep -q "ltap_$dead/" $T/uprobe_events &&
       ! { grep -q "removed stale instance ltap-$dead" $WORK/err && grep -q "removed stale probe ltap_$dead/" $WORK/err; }; then
      echo "note: the leftovers went, but not all by this run: another ltap of the machine reaped some"
      continue
    fi
    return 0
  done
}

# a run without u: probes of its own, and of a running ltap's: only the dead
# one's go. A run reaps just before its own first change (here its
# instance); one that changes nothing touches nothing (below).
"$LTAP" -v -e "probe('u:$P:f', function() end)" > $WORK/out 2> $WORK/err.live & live=$!; STARTED+=($live)
wait_for $WORK/err.live "attached in"
reap_run -d 10ms -e "probe('sched:sched_process_exit', function() end)"
expect_eq "exit" 0 "$RC"
[ ! -d $T/instances/ltap-$dead ] || fail "stale instance not removed at the next start"
grep -q "ltap_$dead/" $T/uprobe_events && fail "stale uprobe not removed by a run without u: probes"
expect_grep "instance removal said" "removed stale instance ltap-$dead" $WORK/err
expect_grep "probe removal said" "removed stale probe ltap_$dead/p_f_1" $WORK/err
[ -d $T/instances/ltap-$live ] || fail "the running ltap's instance was removed"
grep -q "ltap_$live/" $T/uprobe_events || fail "the running ltap's uprobe was removed"
echo "ok: the running ltap's instance and uprobe stay"
kill -INT $live; wait $live

# a run that changes nothing in the kernel removes nothing either
leave_stale
run_ltap $WORK/out $WORK/err -d 10ms -e ''
expect_eq "no-change exit" 0 "$RC"
grep -q "removed stale" $WORK/err && fail "a run that changes nothing removed stale leftovers"
echo "ok: a run that changes nothing reaps nothing"

# ltap list
reap_run list 'sched:sched_switch'
expect_eq "list exit" 0 "$RC"
[ ! -d $T/instances/ltap-$dead ] || fail "stale instance not removed by ltap list"
grep -q "ltap_$dead/" $T/uprobe_events && fail "stale uprobe not removed by ltap list"
expect_grep "list removal said" "removed stale probe ltap_$dead/p_f_1" $WORK/err

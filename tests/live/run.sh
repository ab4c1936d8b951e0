#!/bin/bash
# run.sh TEST: runs one live test file, then checks the kernel's tracing state
# is exactly as before (no instance, event, filter, pid or uprobe left).
#
# Time: the lock wait (up to LTAP_LOCK_WAIT s, default 1200) and the test's
# own run (up to LTAP_TEST_TIMEOUT s, default 120, counted once the lock is
# held) are limited here, each with a message; ctest's TIMEOUT covers both
# (tests/CMakeLists.txt), so a test queued behind other checkouts' live tests
# is not killed silently by ctest.
set -u
LOCK=/run/lock/ltap-live-tests.lock
# one live test at a time on this machine, across checkouts too: the
# before/after snapshot would see another run's instance as a leftover
exec 9>>$LOCK
if ! flock -n 9; then
  # /proc/locks: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"
  holder=$(awk -v ino=":$(stat -c %i $LOCK)" '$2 == "FLOCK" && substr($6, length($6) - length(ino) + 1) == ino { print $5; exit }' /proc/locks)
  cmd=$(cat /proc/${holder:-0}/cmdline 2>/dev/null | tr '\0' ' ')
  echo "waiting for the live-test lock $LOCK (taken by pid ${holder:-?}${cmd:+: $cmd})"
  if ! flock -w "${LTAP_LOCK_WAIT:-1200}" 9; then
    echo "FAIL $(basename "$1"): no live-test lock after ${LTAP_LOCK_WAIT:-1200} s"
    exit 1
  fi
fi
. "$(dirname "$0")/lib.sh"
snapshot > "$WORK/before"
# a sanitizer build reports into files here, so reports of runs whose output
# a test only greps are not missed
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/lsan.supp:print_suppressions=0" ASAN_OPTIONS="log_path=$WORK/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$WORK/ubsan"
# the test in its own process group, so a time-out stops it and every
# process it started (ltap cleans the kernel on SIGTERM)
set -m
# (a command that fails outside any check says where, before set -e ends
# it; not one inside a $(...), whose output the test reads, nor one under
# set +e)
name=$(basename "$1")
( set -eE; level=$BASH_SUBSHELL
  trap 'rc=$?; [ $BASH_SUBSHELL -ne $level ] || [[ $- != *e* ]] || echo "FAIL: $name:$LINENO: \"$BASH_COMMAND\" returned $rc"' ERR
  trap kill_started EXIT
  . "$1" ) > "$WORK/test.log" 2>&1 &
test_pid=$!
( sleep "${LTAP_TEST_TIMEOUT:-120}"
  echo "FAIL: $name timed out after ${LTAP_TEST_TIMEOUT:-120} s" >> "$WORK/test.log"
  kill -TERM -- -$test_pid; sleep 5; kill -KILL -- -$test_pid ) > /dev/null 2>&1 &
watchdog=$!
set +m
wait $test_pid
rc=$?
kill -- -$watchdog 2>/dev/null
cat "$WORK/test.log"
snapshot > "$WORK/after"
if ! diff -u "$WORK/before" "$WORK/after"; then
  echo "FAIL: kernel tracing state changed by $(basename "$1")"
  rc=1
fi
if compgen -G "$WORK/asan.*" >/dev/null || compgen -G "$WORK/ubsan.*" >/dev/null; then
  cat "$WORK"/asan.* "$WORK"/ubsan.* 2>/dev/null
  echo "FAIL: sanitizer reports"
  rc=1
fi
[ $rc -eq 0 ] && echo "PASS $(basename "$1")" || echo "FAIL $(basename "$1") (rc=$rc)"
exit $rc

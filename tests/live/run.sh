#!/bin/bash
# run.sh TEST: runs one live test file, then checks the kernel's tracing state
# is exactly as before (no instance, event, filter, pid or uprobe left).
set -u
# one live test at a time on this machine, across checkouts too: the
# before/after snapshot would see another run's instance as a leftover
exec 9>/run/lock/ltap-live-tests.lock
flock 9
. "$(dirname "$0")/lib.sh"
snapshot > "$WORK/before"
# a sanitizer build reports into files here, so reports of runs whose output
# a test only greps are not missed
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/lsan.supp:print_suppressions=0" ASAN_OPTIONS="log_path=$WORK/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$WORK/ubsan"
( set -e; trap kill_started EXIT; . "$1" ) > "$WORK/test.log" 2>&1
rc=$?
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

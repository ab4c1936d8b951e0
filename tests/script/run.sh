#!/bin/bash
# run.sh SCRIPT.lua [LTAP OPTIONS...]: runs a script that declares no probes
# (so it touches no kernel tracing state) and compares its standard output
# with SCRIPT.expected, byte for byte. Sanitizer reports fail the test.
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
script=$1; shift
expected=${script%.lua}.expected
# "-- ltap-args: ..." on the first line: options, paths relative to the script
args=$(sed -n '1s/^-- ltap-args: //p' "$script")
cd "$(dirname "$script")"
work=$(mktemp -d /tmp/ltap-script.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/lsan.supp:print_suppressions=0" ASAN_OPTIONS="log_path=$work/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/ubsan"
"$LTAP" $args "$@" "$script" > "$work/out" 2> "$work/err"
rc=$?
cat "$work/err"
fail=0
if [ $rc -ne 0 ]; then echo "FAIL: exit $rc"; fail=1; fi
if ! diff -u "$expected" "$work/out"; then echo "FAIL: output differs from $(basename "$expected")"; fail=1; fi
# SCRIPT.stderr, when there is one: the messages expected on standard error
if [ -e "${script%.lua}.stderr" ] && ! diff -u "${script%.lua}.stderr" "$work/err"; then
  echo "FAIL: standard error differs from $(basename "${script%.lua}.stderr")"; fail=1
fi
if compgen -G "$work/asan.*" >/dev/null || compgen -G "$work/ubsan.*" >/dev/null; then cat "$work"/asan.* "$work"/ubsan.*; echo "FAIL: sanitizer reports"; fail=1; fi
[ $fail -eq 0 ] && echo "PASS $(basename "$script")"
exit $fail

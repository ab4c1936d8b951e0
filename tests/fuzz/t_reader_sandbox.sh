#!/bin/bash
# t_reader_sandbox.sh: the trace.dat reader process of a real `ltap --input`
# (runtime/replay_reader.c) runs confined (runtime/sandbox.h), seen from
# outside while the replay goes on (the script's begin hook waits on its
# standard input): nobody's ids when ltap is root, no capability in any set,
# no_new_privs, one seccomp filter, no fd but /dev/null on 0-2, its input
# and its pipe (and, in a sanitizer build, the memfd of its reports). What
# the filter refuses is tests/unit/test_sandbox.c's. Then the replay ends
# with every event, and the reader is gone.
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/ltap-sandbox.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2> /dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkfifo "$work/in"
cat > "$work/s.lua" <<'LUA'
local n = 0
probe("syscalls:sys_enter_getppid", function() n = n + 1 end)
begin(function() io.stderr:write("ready\n") io.read("l") end)
finish(function() print("getppid " .. n) end)
LUA
export ASAN_OPTIONS="log_path=$work/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/ubsan"
"$LTAP" --input "$here/../data/getppid-pages.dat" "$work/s.lua" < "$work/in" > "$work/out" 2> "$work/err" & pid=$!
exec 3> "$work/in"
for _ in $(seq 500); do grep -q '^ready$' "$work/err" && break; sleep 0.02; done # poll
grep -q '^ready$' "$work/err" || { cat "$work/err"; fail "the replay did not start"; }
reader=$(cat /proc/$pid/task/*/children 2> /dev/null | tr ' ' '\n' | grep . | head -1)
[ -n "$reader" ] || fail "no reader process under ltap $pid"
st() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' /proc/$reader/status; }
echo "reader $reader: Uid $(st Uid | tr '\t' ' '), CapEff $(st CapEff), CapBnd $(st CapBnd), NoNewPrivs $(st NoNewPrivs), Seccomp $(st Seccomp)"
if [ "$(id -u)" = 0 ]; then
  nobody=$(id -u nobody)
  [ "$(st Uid | tr '\t' ' ')" = "$nobody $nobody $nobody $nobody" ] || fail "the reader is not nobody: $(st Uid)"
  [ "$(st CapBnd)" = 0000000000000000 ] || fail "bounding set $(st CapBnd)"
fi
for c in CapInh CapPrm CapEff CapAmb; do [ "$(st $c)" = 0000000000000000 ] || fail "$c $(st $c)"; done
[ "$(st NoNewPrivs)" = 1 ] || fail "no_new_privs not set"
[ "$(st Seccomp)" = 2 ] && [ "$(st Seccomp_filters)" = 1 ] || fail "no seccomp filter: $(st Seccomp)"
fds=$(ls /proc/$reader/fd | sort -n | tr '\n' ' ')
for f in /proc/$reader/fd/*; do echo "  fd ${f##*/} -> $(readlink $f)"; done
n=$(ls /proc/$reader/fd | wc -l)
for f in 0 1 2; do [ "$(readlink /proc/$reader/fd/$f)" = /dev/null ] || fail "fd $f is not /dev/null"; done
ls -l /proc/$reader/fd | grep -q 'getppid-pages.dat' || fail "its input is not among its fds"
ls -l /proc/$reader/fd | grep -q 'pipe:' || fail "its pipe is not among its fds"
[ "$n" = 5 ] || { [ "$n" = 6 ] && ls -l /proc/$reader/fd | grep -q 'memfd:ltap-reader-reports'; } || fail "fds $fds"
echo go >&3
exec 3>&-
wait $pid; rc=$?
pid=
[ $rc = 0 ] || { cat "$work/err"; fail "exit $rc"; }
[ "$(cat "$work/out")" = "getppid 1001" ] || fail "output $(cat "$work/out")"
[ ! -e /proc/$reader ] || fail "the reader outlived the replay"
if compgen -G "$work/asan*" > /dev/null || compgen -G "$work/ubsan*" > /dev/null; then
  cat "$work"/asan* "$work"/ubsan* 2> /dev/null; fail "sanitizer reports"
fi
echo "ok: the reader confined (nobody, no capabilities, no_new_privs, seccomp, $n fds), the replay whole"

#!/bin/bash
# t_text_input.sh: ltap --input of text that is not a well-behaved file:
# a line over LTAP_TEXT_LINE_MAX (64 KiB) is one malformed line and the
# events after it count; /dev/zero (one endless line) takes no memory and
# ends at SIGINT; a read error and a directory on standard input are errors
# naming the input; a FIFO and a pipe on standard input read as a file does.
# Before: the long line was read (and kept) whole, /dev/zero grew until the
# OOM killer (under a 1 GB address-space limit: exit 0, "events 0"), and
# read errors ended the input silently with exit 0, and a FIFO named by its
# path hung (its first bytes went to the trace.dat magic check).
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/ltap-textin.XXXXXX)
writer=
trap '[ -n "$writer" ] && kill $writer 2>/dev/null; rm -rf "$work"' EXIT
asan="log_path=$work/asan:detect_leaks=1"
export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0" ASAN_OPTIONS="$asan" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/ubsan"
data=$here/../data/latency.txt
cat > "$work/count.lua" <<'LUA'
local n = 0
probe("*:*", function() n = n + 1 end)
finish(function() print("events " .. n) end)
LUA
fail=0
check() { # check WHAT RC STDOUT STDERR: compares the last run's
  if [ "$RC" -ne "$2" ] || [ "$(cat "$work/out")" != "$3" ] || [ "$(cat "$work/err")" != "$4" ]; then
    echo "FAIL $1: exit $RC (want $2)"; echo "  stdout: $(cat "$work/out")"; echo "  want:   $3"
    echo "  stderr: $(cat "$work/err")"; echo "  want:   $4"; fail=1
  else
    echo "ok $1"
  fi
}
run() { "$LTAP" "$@" "$work/count.lua" > "$work/out" 2> "$work/err"; RC=$?; }

run --input "$data"
check "the file itself" 0 "events 16" ""
{ printf '%100000s\n' x; cat "$data"; } > "$work/long.txt"
run --input "$work/long.txt"
check "a 100 KB line" 0 "events 16" "ltap: replay: 1 line of $work/long.txt is not an event (the first: line 1)"

# /dev/zero: bounded memory (the address space or ASan's RSS limit catches a
# regression before the machine does), and SIGINT still ends it
ulimit_v=1000000
if ldd "$LTAP" | grep -q libasan; then ulimit_v=unlimited; fi
( ulimit -v $ulimit_v
  ASAN_OPTIONS="$asan:hard_rss_limit_mb=1000" exec "$LTAP" --input /dev/zero "$work/count.lua" > "$work/out" 2> "$work/err" ) &
pid=$!
sleep 2 # the time it reads, not a readiness wait
rss=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
kill -INT $pid
wait $pid
RC=$?
check "/dev/zero" 0 "events 0" "ltap: replay: 1 line of /dev/zero is not an event (the first: line 1)"
if [ "${rss:-999999}" -gt 200000 ]; then echo "FAIL /dev/zero: ${rss:-?} KB resident"; fail=1; else echo "ok /dev/zero: $rss KB resident"; fi

run --input /proc/self/mem
check "a read error" 1 "" "ltap: replay: cannot read /proc/self/mem: Input/output error"
run --input - < "$work"
check "a directory on stdin" 1 "" "ltap: replay: cannot read -: Is a directory"
run --input "$work"
check "a directory" 1 "" "ltap: replay: cannot read $work: Is a directory"

mkfifo "$work/fifo"
cat "$data" > "$work/fifo" & writer=$!
timeout 10 "$LTAP" --input "$work/fifo" "$work/count.lua" > "$work/out" 2> "$work/err"; RC=$?
check "a FIFO" 0 "events 16" ""
cat "$data" | { "$LTAP" --input - "$work/count.lua" > "$work/out" 2> "$work/err"; RC=$?; check "a pipe" 0 "events 16" ""; [ $fail -eq 0 ]; } || fail=1

if compgen -G "$work/asan.*" > /dev/null || compgen -G "$work/ubsan.*" > /dev/null; then
  cat "$work"/asan.* "$work"/ubsan.* 2>/dev/null; echo "FAIL: sanitizer reports"; fail=1
fi
exit $fail

#!/bin/bash
# t_mutate_tracedat.sh [COUNT] [SEED]: ltap --input over COUNT damaged copies
# of the trace.dat fixtures (mutate_dat.py, fixed SEED), each read every way
# a script can (mutate_all.lua). Each case must end with either the script's
# last line and exit 0, or a non-zero exit and exactly one line on standard
# error naming the file (a file read as text may warn in one such line); never a signal, a hang (TIMEOUT seconds) or a
# sanitizer report. Prints a summary line and the first failures.
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
count=${1:-300} seed=${2:-13}
timeout=${TIMEOUT:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/ltap-mutate.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 "$here/mutate_dat.py" "$work/cases" "$count" "$seed" "$here"/../data/*.dat > "$work/cases.txt" || exit 1
export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0"
ok=0 errors=0 crashes=0 hangs=0 reports=0 bad=0 shown=0
while read -r name from what; do
  f=$work/cases/$name
  mkdir "$work/san"
  ASAN_OPTIONS="log_path=$work/san/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/san/ubsan" \
    timeout -k 2 "$timeout" "$LTAP" --input "$f" "$here/mutate_all.lua" > "$work/out" 2> "$work/err" < /dev/null
  rc=$?
  why=""
  if compgen -G "$work/san/*" > /dev/null; then
    reports=$((reports + 1)); why="sanitizer report: $(grep -m1 -h 'ERROR\|runtime error' "$work"/san/* | head -c 300)"
  fi
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    hangs=$((hangs + 1)); why="no end within ${timeout}s $why"
  elif [ $rc -gt 128 ]; then
    crashes=$((crashes + 1)); why="killed by signal $((rc - 128)) $why"
  elif [ -z "$why" ] && [ $rc -eq 0 ]; then
    # a file no longer starting as a trace.dat is read as text: its lines
    # that are not events are counted, in one warning naming the file
    if [ "$(wc -l < "$work/err")" -gt 1 ] || { [ -s "$work/err" ] && ! grep -qF "$f" "$work/err"; } ||
       ! grep -q '^events [0-9]*, filtered [0-9]*$' "$work/out"; then
      bad=$((bad + 1)); why="exit 0 without the script's last line, or with messages"
    else
      ok=$((ok + 1))
    fi
  elif [ -z "$why" ]; then
    if [ "$(wc -l < "$work/err")" -ne 1 ] || ! grep -qF "$f" "$work/err"; then
      bad=$((bad + 1)); why="exit $rc without one line naming the file"
    else
      errors=$((errors + 1))
    fi
  fi
  if [ -n "$why" ] && [ $shown -lt 10 ]; then
    shown=$((shown + 1))
    echo "FAIL $name ($from, $what): $why"
    head -c 600 "$work/err" | sed 's/^/  | /'
  fi
  rm -rf "$work/san"
done < "$work/cases.txt"
echo "mutations: $count cases (seed $seed): $errors errors, $ok replays; $crashes crashes, $hangs hangs, $reports with sanitizer reports, $bad bad endings"
[ $((crashes + hangs + reports + bad)) -eq 0 ]

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
. "$here/mutate_lib.sh"
case_judge() { # RC FILE
  if [ "$1" -eq 0 ]; then
    # a file no longer starting as a trace.dat is read as text: its lines
    # that are not events are counted, in one warning naming the file
    if [ "$(wc -l < "$work/err")" -gt 1 ] || { [ -s "$work/err" ] && ! grep -qF "$2" "$work/err"; } ||
       ! grep -q '^events [0-9]*, filtered [0-9]*$' "$work/out"; then
      why="exit 0 without the script's last line, or with messages"
    fi
    return 0
  fi
  if [ "$(wc -l < "$work/err")" -ne 1 ] || ! grep -qF "$2" "$work/err"; then
    why="exit $1 without one line naming the file"
  fi
  return 1
}
mutate_loop "$work/cases" "$work/cases.txt" "$LTAP" --input @ "$here/mutate_all.lua"
echo "mutations: $count cases (seed $seed): $errors errors, $ok replays; $crashes crashes, $hangs hangs, $reports with sanitizer reports, $bad bad endings"
[ $((crashes + hangs + reports + bad)) -eq 0 ]

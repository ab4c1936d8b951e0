#!/bin/bash
# t_mutate_perfdata.sh [COUNT] [SEED]: ltap annotate -i over COUNT damaged
# copies of tests/data/annotate-perf.data (mutate_dat.py, fixed SEED). Each
# case must end with an annotation and exit 0, or exit 1 and exactly one
# line on standard error ("ltap: annotate: ..."); never a signal, a hang
# (TIMEOUT seconds) or a sanitizer report. Prints a summary line and the
# first failures.
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
count=${1:-300} seed=${2:-17}
timeout=${TIMEOUT:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/ltap-mutate.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 "$here/mutate_dat.py" "$work/cases" "$count" "$seed" "$here/../data/annotate-perf.data" > "$work/cases.txt" || exit 1
. "$here/mutate_lib.sh"
case_judge() { # RC FILE
  if [ "$1" -eq 0 ]; then
    grep -q '^ Percent |' "$work/out" || why="exit 0 without an annotation"
    return 0
  fi
  # (an ltap start reaps what killed ltaps left, and says so: not this case's)
  grep -v 'stale' "$work/err" > "$work/err1"
  if [ "$1" -ne 1 ] || [ "$(wc -l < "$work/err1")" -ne 1 ] || ! grep -q '^ltap: annotate: ' "$work/err1"; then
    why="exit $1 without one line"
  fi
  return 1
}
mutate_loop "$work/cases" "$work/cases.txt" "$LTAP" annotate crunch -i @
echo "mutations: $count cases (seed $seed): $errors refused, $ok annotated; $crashes crashes, $hangs hangs, $reports with sanitizer reports, $bad bad endings"
[ $((crashes + hangs + reports + bad)) -eq 0 ]

#!/bin/bash
# check_sleep.sh: no live test waits with a bare sleep (tests/README.md,
# "Never a sleep"): every sleep in tests/live carries on its line the mark
# "# poll" (a loop that tests a condition between tries, with a bound) or
# "# workload" (the sleep is what is traced or timed, or an experiment's
# chosen moment), so that a sleep used as readiness stands out.
cd "$(dirname "$0")" || exit 1
bad=$(grep -nE '(\bsleep [0-9$]|time\.sleep\(|usleep\()' -- *.sh *.test *.py lua/* | grep -vE '# *(poll|workload)')
if [ -n "$bad" ]; then
  echo "$bad"
  echo "FAIL: a sleep without its mark (# poll or # workload): readiness is a line a program prints"
  exit 1
fi
echo "ok: every sleep of tests/live is a poll or a workload"

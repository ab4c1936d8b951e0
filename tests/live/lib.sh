# lib.sh: helpers for the live tests that are bash programs (tests/README.md
# says which and why), sourced first: . "$(dirname "$0")/lib.sh". The engine
# (engine.py) runs them with LTAP, PROGS, SRCDIR and WORK set and makes its
# own checks around them (kernel state, sanitizer reports); by hand, WORK is
# made here. set -e: a failed check, or any command failing outside one,
# ends the test, naming the line.
set -eE
: "${LTAP:?LTAP must point at the ltap binary}" "${PROGS:?}" "${SRCDIR:?}"
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d /tmp/ltap-test.XXXXXX); OWN_WORK=1; fi
STARTED=()
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null || true
# (not a command inside a $(...), whose output the test reads, nor one under set +e)
LIB_LEVEL=$BASH_SUBSHELL
trap 'rc=$?; [ $BASH_SUBSHELL -ne $LIB_LEVEL ] || [[ $- != *e* ]] || echo "FAIL: $(basename "$0"):$LINENO: \"$BASH_COMMAND\" returned $rc"' ERR
trap 'kill_started; [ -z "${OWN_WORK:-}" ] || rm -rf "$WORK"' EXIT

# The tracing state a test must leave as it found it (the engine checks it
# around every test; a script may check it between its own steps).
snapshot() {
  ls $T/instances
  cat $T/set_event $T/set_event_pid $T/tracing_on $T/uprobe_events $T/dynamic_events 2>/dev/null
  grep -l . $T/events/*/*/filter 2>/dev/null | xargs -r grep -Lx none
}

kill_started() { for p in "${STARTED[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }

# a failure shows what ltap said last, so a CI log tells why
fail() {
  echo "FAIL: $*"
  if [ -s "$WORK/err" ]; then echo "--- ltap's last stderr:"; tail -20 "$WORK/err"; fi
  exit 1
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() { [ "$2" == "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1 = $2"; }

# expect_grep WHAT PATTERN FILE
expect_grep() { grep -qE -- "$2" "$3" || { cat "$3"; fail "$1: no line matching '$2'"; }; echo "ok: $1"; }

# run_ltap OUT ERR ARGS...: runs ltap, stores its exit code in RC.
run_ltap() { local o=$1 e=$2; shift 2; set +e; "$LTAP" "$@" > "$o" 2> "$e"; RC=$?; set -e; }

# wait_for FILE PATTERN [N]: waits up to 20 s for N (default 1) lines
# matching PATTERN in FILE: readiness from what a program prints.
wait_for() {
  local n
  for _ in $(seq 400); do
    n=$(grep -cE -- "$2" "$1" 2>/dev/null) || true
    [ "${n:-0}" -ge "${3:-1}" ] && return 0
    sleep 0.05 # poll
  done
  fail "timed out waiting for ${3:-1} line(s) '$2' in $1"
}

# wait_attached ERR: ltap -v says "attached in X ms" on stderr once its
# probes are enabled and its loop about to run.
wait_attached() { wait_for "$1" "attached in [0-9.]+ ms"; }

# wait_reading PID: waits until PID is blocked reading its standard input
# (/proc/PID/syscall: read(2) is 0 on x86-64, fd 0): ltap --input - has
# loaded its script and waits for a line.
wait_reading() {
  for _ in $(seq 2000); do
    case "$(cat /proc/$1/syscall 2>/dev/null)" in "0 0x0 "*) return 0 ;; esac
    sleep 0.01 # poll
  done
  fail "pid $1 never blocked reading its standard input"
}

# signal_taken PID [SIG]: waits until PID has no SIG (default INT) pending,
# i.e. its handler took the last one: a second kill is then a second
# signal, not one merged with the first (standard signals do not queue).
signal_taken() {
  local bit=$(( 1 << ($(kill -l "${2:-INT}") - 1) ))
  for _ in $(seq 2000); do
    local pnd
    pnd=$(awk '$1 == "SigPnd:" || $1 == "ShdPnd:" { printf "%s ", $2 }' /proc/$1/status 2>/dev/null) || return 0
    [ -z "$pnd" ] && return 0
    local p1=${pnd%% *} p2=${pnd#* }
    (( (0x$p1 | 0x${p2% }) & bit )) || return 0
    sleep 0.01 # poll
  done
  fail "pid $1 never took its SIG${2:-INT}"
}

# getppid() calls by process name (tests/live/lua/count.lua)
COUNT_SCRIPT=$SRCDIR/tests/live/lua/count.lua

# lib.sh: helpers for live tests. Tests run with `set -e`; a failed check exits.
: "${LTAP:?LTAP must point at the ltap binary}" "${PROGS:?}" "${SRCDIR:?}"
WORK=$(mktemp -d /tmp/ltap-test.XXXXXX)
trap 'kill_started; rm -rf "$WORK"' EXIT
STARTED=()
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null || true

# The tracing state a test must leave as it found it.
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

# wait_for FILE PATTERN: waits up to 10 s for a line in FILE.
wait_for() { for _ in $(seq 100); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; fail "timed out waiting for '$2' in $1"; }

COUNT_SCRIPT=$WORK/count.lua
cat > "$COUNT_SCRIPT" <<'LUA'
local n = {}
probe("syscalls:sys_enter_getppid", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)
LUA

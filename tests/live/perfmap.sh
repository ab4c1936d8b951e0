#!/bin/bash
# JIT code named by /tmp/perf-PID.map (tests/progs/jit: a loop copied into
# anonymous executable memory), through sym() and a profile; map files that
# are not the process's own are refused with one warning and cannot stall ltap.
. "$(dirname "$0")/lib.sh"

# start_jit [nomap] [USER]: runs jit for 30 s, sets J (pid) and A (the loop's address)
start_jit() {
  local how=${1:-} user=${2:-}
  if [ -n "$user" ]; then
    setpriv --reuid="$user" --regid=nogroup --clear-groups $WORK/jit 30 $how > $WORK/jit.out &
  else
    $PROGS/jit 30 $how > $WORK/jit.out &
  fi
  J=$!
  STARTED+=($J)
  wait_for $WORK/jit.out '^ready$'
  A=$(head -1 $WORK/jit.out)
}
stop_jit() { kill $J; wait $J 2>/dev/null || true; rm -f /tmp/perf-$J.map; }
trap 'kill_started; rm -f /tmp/perf-${J:-x}.map; [ -z "${OWN_WORK:-}" ] || rm -rf "$WORK"' EXIT

# sym_jit: what sym() says of the loop's fourth byte, bounded in time
sym_jit() {
  set +e
  timeout 10 "$LTAP" -e "begin(function() print(sym(0x$A + 3, $J)) exit() end)" > $WORK/out 2> $WORK/err
  RC=$?
  set -e
}

start_jit
sym_jit
expect_eq "sym() of JIT code" "0 jit_spin	3	/tmp/perf-$J.map" "$RC $(cat $WORK/out)"
expect_eq "no warning" "" "$(cat $WORK/err)"
stop_jit

# a profile names the JIT's samples as perf report does: dso perf-PID.map
run_ltap $WORK/out $WORK/err profile -F 499 -c "$PROGS/jit 1" --top 3
cat $WORK/out
expect_eq "profile exit" 0 "$RC"
expect_grep "profile row of the JIT code" "^ +[0-9.]+%  jit +perf-[0-9]+\.map +\[\.\] jit_spin$" $WORK/out

# a process of another user with its own map (owned by that user): trusted
install -m 755 $PROGS/jit $WORK/jit
chmod 755 $WORK
start_jit "" nobody
expect_eq "map owner" "nobody" "$(stat -c %U /tmp/perf-$J.map)"
sym_jit
expect_eq "sym() with the process's own map" "0 jit_spin" "$RC $(cut -f1 $WORK/out)"
stop_jit

# maps that are not the process's own: refused, named in one warning line
start_jit nomap
printf '%s 7 planted\n' $A > $WORK/planted.map
ln -s $WORK/planted.map /tmp/perf-$J.map
sym_jit
expect_eq "symbolic link refused" "0 0" "$RC $(grep -c planted $WORK/out || true)"
expect_eq "symbolic link warning" "ltap: symbols: ignoring /tmp/perf-$J.map: a symbolic link" "$(cat $WORK/err)"

rm /tmp/perf-$J.map
ln -s /dev/zero /tmp/perf-$J.map
sym_jit
expect_eq "a link to /dev/zero: no hang" "0 ltap: symbols: ignoring /tmp/perf-$J.map: a symbolic link" "$RC $(cat $WORK/err)"

rm /tmp/perf-$J.map
mkfifo /tmp/perf-$J.map
sym_jit
expect_eq "a FIFO: no hang" "0 ltap: symbols: ignoring /tmp/perf-$J.map: not a regular file" "$RC $(cat $WORK/err)"

rm /tmp/perf-$J.map
cp $WORK/planted.map /tmp/perf-$J.map
chown nobody /tmp/perf-$J.map
sym_jit
expect_eq "another user's map refused" "0 0" "$RC $(grep -c planted $WORK/out || true)"
expect_eq "another user's map warning" \
  "ltap: symbols: ignoring /tmp/perf-$J.map: owned by uid $(id -u nobody), not by the process's user (uid 0) or root" \
  "$(cat $WORK/err)"
stop_jit

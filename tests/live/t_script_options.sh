# Bundled scripts' command lines (stdlib/getopt.lua): -h of every script,
# usage errors as one line with exit 2 and no traceback, the target options
# (-p, -c, -a, -d) through a script with the messages of ltap's own command
# line, and --check-script loading every script without attaching.
SCRIPTS=$("$LTAP" scripts | awk '{ print $1 }')
[ "$(echo "$SCRIPTS" | wc -l)" -ge 14 ] || fail "ltap scripts lists $(echo $SCRIPTS | wc -w) scripts"

# -h: the header's usage and summary, the options of the declaration; every
# option the usage line names is a declared one
for s in $SCRIPTS; do
  run_ltap $WORK/out $WORK/err $s -h
  expect_eq "$s -h exit" 0 "$RC"
  expect_eq "$s -h: nothing on stderr" "" "$(cat $WORK/err)"
  expect_grep "$s -h: summary" "^$s: [^ ]" $WORK/out
  expect_grep "$s -h: usage" "^usage: ltap (--serve \[ADDR:\]PORT )?$s( |$)" $WORK/out
  expect_grep "$s -h: -h listed" "^  -h, --help +this text$" $WORK/out
  # the usage lines: from "usage:" to the blank line after them
  awk '/^usage:/ { u = 1 } u && /^$/ { exit } u' $WORK/out > $WORK/usage
  for opt in $(grep -oE -- '(^|[[ |])--?[a-zA-Z][a-zA-Z-]*' $WORK/usage | sed 's/^[[ |]*//' | sort -u); do
    case "$opt" in --serve|--input) continue ;; esac # ltap's own, before the name
    grep -qE -- "^  (-[a-zA-Z], )?(--[a-z-]+, )?$opt( |,|$)|^      $opt( |$)|^  -[a-zA-Z], $opt( |$)" $WORK/out ||
      { cat $WORK/out; fail "$s -h: $opt is in the usage line but not declared"; }
  done
  echo "ok: $s -h declares every option of its usage line"
done
run_ltap $WORK/out $WORK/err syscount -h
run_ltap $WORK/out2 $WORK/err syscount --help
expect_eq "--help is -h" "$(cat $WORK/out)" "$(cat $WORK/out2)"
expect_grep "syscount -h: a default" "^  -n, --top TOP +the TOP first rows of each table \(default 10\)$" $WORK/out2
expect_grep "syscount -h: target options" "^  -c, --command CMD +start CMD" $WORK/out2

# an unknown option, in every script: one line naming it, exit 2
for s in $SCRIPTS; do
  run_ltap $WORK/out $WORK/err $s --frob
  expect_eq "$s --frob exit" 2 "$RC"
  expect_eq "$s --frob" "ltap: $s: unknown option '--frob' (see: ltap $s -h)" "$(cat $WORK/err)"
done

# usage_error KIND EXPECTED ARGS...: exit 2, exactly EXPECTED, no traceback
usage_error() {
  local what=$1 want=$2; shift 2
  run_ltap $WORK/out $WORK/err "$@"
  expect_eq "$what: exit" 2 "$RC"
  expect_eq "$what" "$want" "$(cat $WORK/err)"
}
usage_error "missing value" "ltap: syscount: -n needs a value (see: ltap syscount -h)" syscount -n
usage_error "missing value, long" "ltap: latency: --start-filter needs a value (see: ltap latency -h)" \
  latency a:b c:d --start-filter
usage_error "bad integer" "ltap: syscount: -n: bad value 'x' (an integer, at least 1)" syscount -n x
usage_error "bad duration" "ltap: syscount: -i: bad duration '5parsecs' (try 10s, 500ms)" syscount -i 5parsecs
usage_error "bad choice" "ltap: flamegraph: --from: bad value 'pdf' (perf or folded)" flamegraph --from pdf
usage_error "flag with a value" "ltap: syscount: --latency takes no value (see: ltap syscount -h)" syscount --latency=1
usage_error "bad argument" "ltap: pagealloc: INTERVAL: bad duration 'soon' (try 10s, 500ms)" pagealloc soon
usage_error "script's own" "ltap: latency: START and END events are needed (see: ltap latency -h)" latency a:b
usage_error "-f before -e" "ltap: record: -f x follows no -e of its own (see: ltap record -h)" record -f x -e a:b
usage_error "library's check" "ltap: flamegraph: unknown palette 'nope' (hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange)" \
  flamegraph --colors nope

# the target options: a bundled script says what ltap's own command line says
target_error() {
  local want=$1; shift
  run_ltap $WORK/out $WORK/err "$@" -e ''
  expect_eq "ltap $*: exit" 2 "$RC"
  expect_eq "ltap $*" "ltap: $want" "$(cat $WORK/err)"
  for s in syscount "record -e sched:sched_process_exec" profile; do
    run_ltap $WORK/out $WORK/err $s "$@"
    expect_eq "ltap $s $*: exit" 2 "$RC"
    expect_eq "ltap $s $*" "ltap: ${s%% *}: $want" "$(cat $WORK/err)"
  done
}
target_error "-p: bad pid '0' (1 to 2147483647)" -p 0
target_error "-p: bad pid '4294967297' (1 to 2147483647)" -p 4294967297
target_error "-p and -c cannot be used together" -p $$ -c true
target_error "-a cannot be used with -p or -c" -a -c true
target_error "-d: bad duration '0' (try 10s, 500ms)" -d 0
target_error "-d: bad duration 'soon' (try 10s, 500ms)" -d soon
target_error "-c: bad command '/bin/echo 'a': a ' is not closed" -c "/bin/echo 'a"
# given on both command lines: together they are checked as one
usage_error "-p, then the script's -c" "ltap: syscount: -p and -c cannot be used together" -p $$ syscount -c true
usage_error "-d twice" "ltap: syscount: -d was given twice" -d 1s syscount -d 2s
usage_error "record's file and --record" "ltap: record: --record was given twice" \
  --record $WORK/a.dat record -e sched:sched_process_exec -o $WORK/b.dat
usage_error "--input and a script's --record" "ltap: syscount: --input and --record cannot be used together" \
  --input $SRCDIR/tests/data/raw-syscalls.txt syscount --record $WORK/a.dat

# ... and does what it does there: -c and -i 0 through syscount, exact counts
run_ltap $WORK/out $WORK/err syscount -c "$PROGS/getppid_loop 12345" -i 0 -n 50
expect_eq "syscount -c exit" 0 "$RC"
expect_eq "syscount -c: the workload's getppid calls" "getppid 12345" \
  "$(awk '$1 == "getppid" { print $1, $2 }' $WORK/out)"
# -d through syscount ends the run
run_ltap $WORK/out $WORK/err syscount -d 200ms -i 0
expect_eq "syscount -d exit" 0 "$RC"
expect_grep "syscount -d: the tables" "^SYSCALL +CALLS$" $WORK/out
# -p through record: only the target's events, as trace-cmd reads them back
"$PROGS/getppid_loop" 3000 @$WORK/go 2> $WORK/target.err & target=$!; STARTED+=($target)
"$PROGS/getppid_loop" 2000 @$WORK/go 2> $WORK/other.err & other=$!; STARTED+=($other)
wait_for $WORK/target.err "^waiting for"
"$LTAP" -v record -e syscalls:sys_enter_getppid -p $target -o $WORK/p.dat > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_attached $WORK/err
touch $WORK/go
wait $target; wait $other
kill -INT $l; wait $l || fail "record -p exit code $?"
expect_eq "record -p: the target's events" "recorded 3000 events of 1 event type in $WORK/p.dat" "$(cat $WORK/out)"
expect_eq "record -p: trace-cmd agrees" 3000 "$(trace-cmd report $WORK/p.dat 2>/dev/null | grep -c 'sys_enter_getppid')"

# --check-script: every bundled script loads (declarations, options), nothing
# is attached, no command started, nothing runs
declare -A ARGS=(
  [latency]="syscalls:sys_enter_read syscalls:sys_exit_read"
  [record]="-e sched:sched_process_exec -o $WORK/never.dat"
  [report]="kmem:mm_page_alloc order==0"
  [stat]="-- touch $WORK/ran"
  [syscount]="-L -c 'touch $WORK/ran'"
  [timeline]="sched:sched_process_exit u:$PROGS/uprobe_target:phase_a"
  [ucalls]="-L '$PROGS/uprobe_target:phase_*'"
)
for s in $SCRIPTS; do
  eval "set -- ${ARGS[$s]:-}"
  run_ltap $WORK/out $WORK/err --check-script $s "$@"
  expect_eq "--check-script $s ${ARGS[$s]:-}: exit" 0 "$RC"
  expect_eq "--check-script $s: no output, no message of ltap's" "" "$(cat $WORK/out; grep '^ltap' $WORK/err)"
done
[ ! -e $WORK/ran ] && [ ! -e $WORK/never.dat ] || fail "--check-script ran a command or wrote a file"
run_ltap $WORK/out $WORK/err --check-script -e 'probe("syscalls:sys_enter_getppid", function() end) begin(function() print("ran") end)'
expect_eq "--check-script: no begin hook" "0 " "$RC $(cat $WORK/out)"
# what fails to load fails the check, as it would fail the run
run_ltap $WORK/out $WORK/err --check-script latency kmem:no_such_event syscalls:sys_exit_read
expect_eq "--check-script of a bad event: exit" 1 "$RC"
expect_grep "--check-script of a bad event" "no_such_event" $WORK/err
run_ltap $WORK/out $WORK/err --check-script syscount -n 0
expect_eq "--check-script of a usage error: exit" 2 "$RC"
# a script's real mistake keeps its traceback
run_ltap $WORK/out $WORK/err --check-script -e 'local t = nil; print(t.x)'
expect_eq "a bug: exit" 1 "$RC"
expect_grep "a bug: traceback" "^stack traceback:" $WORK/err

#!/bin/bash
# Bundled scripts' command lines (stdlib/getopt.lua), the cases that are
# loops over every script: -h of every script, an unknown option in every
# script, the target options (-p, -c, -a, -d) through ltap and three
# scripts with the messages of ltap's own command line, and --check-script
# loading every script without attaching. The single cases are directives
# in script_options.test.
. "$(dirname "$0")/lib.sh"
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

# --check-script: every bundled script loads (declarations, options), nothing
# is attached, no command started, nothing runs
declare -A ARGS=(
  [annotate]="crunch"
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
echo "ok: --check-script of every bundled script: nothing ran, nothing written"

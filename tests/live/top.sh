#!/bin/bash
# ltap top in a real terminal (a tmux pane), one case per run (top.test):
#   keys:         tests/progs/hot's hot_spin at the top within 3 s of the
#                 attach, then the keys (sort, reverse, help, filter, zoom
#                 into a command and a shared object, out again); q quits
#                 with status 0 and the terminal as it was
#   sigterm:      SIGTERM gives the terminal back, the last table stays
#   script_error: a script error while the screen is up gives it back too
# A program: keys sent to a pane and its screen read back until it shows
# what each key must do.
. "$(dirname "$0")/lib.sh"
command -v tmux > /dev/null || fail "tmux is not installed (make.sh TEST_PKGS)"
SOCK=ltap-test-$$
TM() { tmux -L $SOCK "$@"; }

# pane_run NAME CMD...: runs CMD in a new 120x40 pane, stderr in
# $WORK/NAME.err; its pid in $WORK/NAME.pid; once it ends, its status in
# $WORK/NAME.exit and the terminal's settings in $WORK/NAME.stty
pane_run() {
  local name=$1; shift
  rm -f $WORK/$name.*
  printf '%q ' "$@" > $WORK/$name.cmd
  cat > $WORK/$name.sh <<SH
bash -c 'echo \$\$ > $WORK/$name.pid; exec $(cat $WORK/$name.cmd)' 2> ${ERR_TO:-$WORK/$name.err}
echo \$? > $WORK/$name.exit.tmp; mv $WORK/$name.exit.tmp $WORK/$name.exit
stty -a > $WORK/$name.stty
read -r _ # the pane stays, its screen readable, until the server ends
SH
  if TM has-session 2>/dev/null; then
    TM new-window -d -t top: -n $name "bash $WORK/$name.sh"
  else
    # (the engine's lock is not inherited: the server cannot keep it)
    TM new-session -d -s top -n $name -x 120 -y 40 "bash $WORK/$name.sh"
  fi
  wait_for_file $WORK/$name.pid
}

wait_for_file() { for _ in $(seq 400); do [ -s "$1" ] && return 0; sleep 0.05; done; fail "no $1"; } # poll
screen() { TM capture-pane -p -t "top:$1"; }
# wait_screen NAME PATTERN [SECONDS [F]]: the pane shows a line matching
# PATTERN (an extended regular expression, or with F a fixed string)
wait_screen() {
  local end=$(( $(date +%s%N) + ${3:-10} * 1000000000 ))
  while [ "$(date +%s%N)" -lt $end ]; do
    screen $1 > $WORK/screen
    grep -q${4:-E} -- "$2" $WORK/screen && return 0
    sleep 0.05 # poll
  done
  cat $WORK/screen
  fail "screen $1: no line matching '$2' within ${3:-10} s"
}
keys() { local w=$1; shift; TM send-keys -t "top:$w" "$@"; }
# the selected row (in reverse video) of the pane, without its escapes
selected() { TM capture-pane -p -e -t "top:$1" | grep -a $'^\e\\[7m *[0-9.]*%' | sed 's/\x1b\[[0-9;]*m//g'; }
# wait_selected NAME last: the selection reached the last row
wait_selected() {
  for _ in $(seq 200); do
    screen $1 > $WORK/screen
    [ -n "$(selected $1)" ] && [ "$(selected $1)" == "$(rows | tail -1)" ] && return 0
    sleep 0.05 # poll
  done
  fail "the selection never reached the last row"
}
# rows: the table's data rows of the screen last captured
rows() { sed -n '4,39p' $WORK/screen | grep -E '^ +[0-9.]+%' || true; }
terminal_restored() { # NAME: the pane left the alternate screen, and the settings are sane again
  expect_eq "$1: alternate screen left" 0 "$(TM display -p -t "top:$1" '#{alternate_on}')"
  grep -qE '(^| )icanon( |$)' $WORK/$1.stty && grep -qE '(^| )echo( |$)' $WORK/$1.stty ||
    { cat $WORK/$1.stty; fail "$1: terminal left without icanon/echo"; }
  echo "ok: $1: terminal settings restored"
}

# a failed check ends the panes' ltaps with SIGTERM and waits for them, so
# the kernel state is checked once they cleaned up (lib.sh's own kill_started
# would kill the tmux server, and the panes' ltaps would still be cleaning,
# after the engine compared the kernel's state)
kill_started() {
  local f p
  for f in $WORK/*.pid; do
    p=$(cat "$f" 2>/dev/null) || continue
    kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done # poll
  done
  TM kill-server 2>/dev/null || true
}

case ${1:?keys, sigterm or script_error} in
keys)
pane_run top "$LTAP" -v top -c "$PROGS/hot 100"
wait_attached $WORK/top.err
t0=$(date +%s%N)
wait_screen top '^ +[0-9.]+% +[0-9]+ +hot +hot +\[\.\] hot_spin' 3
sed -n 4p $WORK/screen | grep -qE 'hot_spin$' || { cat $WORK/screen; fail "hot_spin is not the first row"; }
echo "ok: hot_spin on top $(( ($(date +%s%N) - t0) / 1000000 )) ms after the attach"
share=$(sed -n 4p $WORK/screen | awk '{ print int($1) }')
[ "$share" -ge 50 ] || fail "hot_spin has $share% of the samples"
expect_grep "status line" '^ltap top  cpu-clock 4000 Hz  .* samples \([0-9]+/s\)  lost [0-9]+  ltap CPU [0-9.]+%' $WORK/screen

keys top s
wait_screen top '^sort: command$'
keys top s
wait_screen top '^sort: shared object$'
keys top S
wait_screen top '^sort: shared object \(reversed\)$'
# reversed by shared object: names descending down the rows
rows | awk '{ print $4 }' > $WORK/dsos
sort -r -c $WORK/dsos || { cat $WORK/screen; fail "rows not in descending shared-object order"; }
echo "ok: rows by shared object, reversed"
keys top s s
wait_screen top '^sort: overhead$'

keys top '?'
wait_screen top '^ltap top: keys$'
wait_screen top 'z +zoom into the selected row'
keys top x
wait_screen top '^ +Overhead +Samples'

# filter: only symbols matching the pattern
keys top / s p i n Enter
wait_screen top '^filter: spin'
rows > $WORK/rows
[ -s $WORK/rows ] || fail "filter 'spin' shows no row"
grep -v 'spin' $WORK/rows && fail "filter 'spin' shows rows without it"
echo "ok: filter spin: $(wc -l < $WORK/rows) rows, all matching"
keys top / BSpace BSpace BSpace BSpace Enter
wait_screen top '^sort: overhead$'

# zoom into the selected row's shared object (the last row's), then out
keys top End
wait_selected top last
sel_dso=$(selected top | awk '{ print $4 }')
keys top d
wait_screen top "zoom: dso $sel_dso" 10 F
rows | awk -v d="$sel_dso" '$4 != d { bad = 1 } END { exit bad }' || { cat $WORK/screen; fail "zoom dso $sel_dso shows other objects"; }
echo "ok: zoom into $sel_dso"
keys top Escape
wait_screen top '^sort: overhead$'
# zoom into the first row's command (hot)
keys top Home z
wait_screen top '^zoom: command hot'
rows | awk '$3 != "hot" { bad = 1 } END { exit bad }' || { cat $WORK/screen; fail "zoom command hot shows other commands"; }
echo "ok: zoom into command hot"
keys top BSpace
wait_screen top '^sort: overhead$'
# a smaller window: the screen is drawn again to its size (no SIGWINCH
# handler: ltap reads the size five times a second)
status_line() { screen top | grep -n '^q quit' | cut -d: -f1; }
before=$(status_line)
TM resize-window -t top:top -x 100 -y 20
for _ in $(seq 100); do [ "$(status_line)" = 20 ] && break; sleep 0.05; done # poll
[ "$(status_line)" = 20 ] || { screen top; fail "resize to 20 rows: the keys line is at row $(status_line), was $before"; }
echo "ok: resized: the keys line from row $before to row 20"

keys top q
wait_for_file $WORK/top.exit
expect_eq "q: exit status" 0 "$(cat $WORK/top.exit)"
terminal_restored top
grep -q 'ltap top' $WORK/top.err && fail "q printed the table on stderr"
echo "ok: top: q quit, nothing printed on stderr"
;;
sigterm)
# SIGTERM: the run ends as with ^C; the terminal comes back, the last table stays
pane_run term "$LTAP" -v top -c "$PROGS/hot 100"
wait_attached $WORK/term.err
wait_screen term 'hot_spin' 5
kill -TERM "$(cat $WORK/term.pid)"
wait_for_file $WORK/term.exit
expect_eq "SIGTERM: exit status" 0 "$(cat $WORK/term.exit)"
terminal_restored term
wait_screen term '^# Overhead +Samples +Command'
echo "ok: SIGTERM: the last table stays"
;;
script_error)
# a script error while the screen is up: the terminal comes back and the
# message, written while the screen was up, shows after it
cat > $WORK/fail.lua <<'LUA'
begin(function() ltap.term.open(function() end) ltap.term.write("SCREEN UP\r\n") end)
after("200ms", function() error("boom in a timer") end)
LUA
ERR_TO=/dev/stderr pane_run boom "$LTAP" $WORK/fail.lua
wait_for_file $WORK/boom.exit
expect_eq "script error: exit status" 1 "$(cat $WORK/boom.exit)"
terminal_restored boom
wait_screen boom 'fail.lua:2: boom in a timer'
echo "ok: script error: its message shows once the screen is gone"
;;
*) fail "top.sh: no case $1" ;;
esac

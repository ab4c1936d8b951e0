# cpu-clock profiles of tests/progs/hot: the hot function by name, its
# source lines, the perf-report table, folded stacks, -c and -p targets.
first=$(grep -n 'void hot_spin(' $SRCDIR/tests/progs/hot.c | cut -d: -f1)
last=$(grep -n 'HOT_END' $SRCDIR/tests/progs/hot.c | cut -d: -f1)
run_ltap $WORK/out $WORK/err profile -F 499 -c "$PROGS/hot 1" --folded $WORK/folded --top 5
cat $WORK/out $WORK/err
expect_eq "exit" 0 "$RC"
expect_grep "report header" "^# Overhead  Command +Shared Object +Symbol$" $WORK/out
expect_grep "report row of the hot function" "^ +[0-9.]+%  hot +hot +\[\.\] hot_spin$" $WORK/out
# of hot's samples, the share whose leaf frame is hot_spin (from the folded file)
share=$(awk '$1 ~ /^hot;/ { n = $NF; t += n; if ($1 ~ /;hot_spin$/) h += n }
             END { printf "%d %d\n", t, (t ? 100 * h / t : 0) }' FS=' ' $WORK/folded)
echo "hot samples, % in hot_spin: $share"
[ "${share% *}" -ge 300 ] || fail "too few samples of hot: $share"
[ "${share#* }" -ge 80 ] || fail "hot_spin has less than 80% of hot's samples: $share"
expect_grep "folded, root first" "^hot;(.*;)?main;hot_spin [0-9]+$" $WORK/folded

# the leaf's source file and line, through e:stack(true)
cat > $WORK/l.lua <<LUA
local n, inside = 0, 0
profile("499hz", function(e)
  if e.comm ~= "hot" then return end
  n = n + 1
  local f = e:stack(true)[1]
  if f.sym == "hot_spin" and f.file:match("tests/progs/hot%.c$") and f.line >= $first and f.line <= $last then
    inside = inside + 1
  end
end)
finish(function() printf("%s\n", n >= 300 and inside >= 0.8 * n and "lines ok" or ("lines bad " .. inside .. "/" .. n)) end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/hot 1" $WORK/l.lua
expect_eq "hot_spin's source lines $first-$last" "lines ok" "$(cat $WORK/out)"

# profile_gated NAME ARGS...: hot runs (exec'd, its mappings in place) and
# waits at its gate (tests/progs/gate.h); ltap profile ARGS attaches to it
# (@pid@ in ARGS: hot's pid); hot then spins 1 s of CPU time, however loaded
# the machine, and exits; a SIGINT ends the profile with all its samples
profile_gated() {
  local name=$1; shift
  rm -f $WORK/go
  $PROGS/hot 1 @$WORK/go > /dev/null 2> $WORK/hot.err & hot=$!; STARTED+=($hot)
  wait_for $WORK/hot.err "^waiting for"
  "$LTAP" -v profile "${@//@pid@/$hot}" > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
  wait_attached $WORK/err
  touch $WORK/go
  wait $hot
  kill -INT $l 2>/dev/null || true; set +e; wait $l; RC=$?; set -e
  expect_eq "exit $name" 0 "$RC"
}

# -p: a process already running (its mappings read from /proc)
profile_gated -p -F 499 -p @pid@ --top 1 --folded $WORK/pid
expect_grep "-p report" "^ +[0-9.]+%  hot +hot +\[\.\] hot_spin$" $WORK/out
share=$(awk '$1 ~ /^hot;/ { t += $NF; if ($1 ~ /;hot_spin$/) h += $NF } END { printf "%d %d\n", t, (t ? 100 * h / t : 0) }' $WORK/pid)
echo "-p: hot samples, % in hot_spin: $share"
[ "${share% *}" -ge 300 ] && [ "${share#* }" -ge 80 ] || fail "-p: hot_spin share: $share"

# -a: system-wide, every process and the kernel; hot's samples still by name
profile_gated -a -F 499 -a --folded $WORK/all --top 3
share=$(awk '$1 ~ /^hot;/ { t += $NF; if ($1 ~ /;hot_spin$/) h += $NF } END { printf "%d %d\n", t, (t ? 100 * h / t : 0) }' $WORK/all)
echo "-a: hot samples, % in hot_spin: $share"
[ "${share% *}" -ge 300 ] && [ "${share#* }" -ge 80 ] || fail "-a: hot_spin share: $share"

run_ltap $WORK/out $WORK/err profile -F 0 -d 1s
expect_eq "bad frequency exit" 2 "$RC"
expect_eq "bad frequency" "ltap: profile: -F: bad value '0' (an integer, 1 to 100000)" "$(cat $WORK/err)"

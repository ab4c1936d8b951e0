#!/bin/bash
# Bounded memory and time: the Lua memory limit ends a growing script with
# its message (also through pcall), while garbage under the limit is
# collected instead; the default limit follows the memory cgroup; the final
# drain stops at --max-drain and counts what it skipped as lost; a second
# SIGINT ends at once; live timers have a 1 ms floor and skip missed ticks.
. "$(dirname "$0")/lib.sh"

# ms_since T0: milliseconds since T0 (date +%s%N)
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# limits.sh default_limit: the default is a quarter of the memory cgroup's
# limit (here 2 GiB; a v1 memory cgroup made for it: the engine skips it
# where there is none to make)
if [ "${1:-}" == default_limit ]; then
  rel=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
  cg=/sys/fs/cgroup/memory$rel/ltap-limit-$$
  mkdir $cg || fail "cannot make the memory cgroup $cg"
  echo $((2 << 30)) > $cg/memory.limit_in_bytes
  set +e
  sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$0\" \"\$@\"" "$LTAP" -e 'local t = {} while true do t[#t + 1] = string.rep("x", 1000) .. #t end' > $WORK/out 2> $WORK/err
  RC=$?; set -e
  for _ in $(seq 50); do rmdir $cg 2>/dev/null && break; sleep 0.02; done # poll
  expect_eq "default limit exit" 1 "$RC"
  expect_grep "a quarter of the cgroup's limit" "limit of 512.0 MiB \(a quarter of the cgroup's memory limit\)" $WORK/err
  exit 0
fi

# a growing table ends the run with the limit's message; kernel state cleaned
cat > $WORK/grow.lua <<'LUA'
probe("sched:sched_switch", function() end)
local t = {}
every("10ms", function() for i = 1, 100000 do t[#t + 1] = {i} end end)
finish(function() print("finish ran") end)
LUA
run_ltap $WORK/out $WORK/err --max-memory 64M $WORK/grow.lua
expect_eq "exit" 1 "$RC"
expect_grep "the limit's message" "^ltap: memory: the script's Lua memory reached its limit of 64.0 MiB; --max-memory SIZE sets another$" $WORK/err
expect_eq "no finish hook after it" "" "$(cat $WORK/out)"

# a pcall in the script does not swallow it
run_ltap $WORK/out $WORK/err --max-memory 32M -e 'local t = {} after("10ms", function() local i = 0 while true do i = i + 1 pcall(function() t[i] = {i} end) end end)'
expect_eq "exit through pcall" 1 "$RC"
expect_grep "the limit's message through pcall" "reached its limit of 32.0 MiB" $WORK/err

# garbage is not growth: 10x the limit allocated, the GC stopped, so only
# Lua's emergency collection at the limit frees it, and the run goes on
run_ltap $WORK/out $WORK/err -d 10ms --max-memory 32M -e 'collectgarbage("stop") local n = 0 for i = 1, 2000000 do local x = {i, i, i} n = n + #x end print(n)'
expect_eq "garbage under the limit" "0 6000000" "$RC $(cat $WORK/out)"

run_ltap $WORK/out $WORK/err --max-memory 1M -e ''
expect_grep "a bad --max-memory" "^ltap: --max-memory: bad size '1M' \(at least 16M; try 2G\)$" $WORK/err

# the final drain: a slow handler over a full ring stops after --max-drain;
# every event is either dispatched or counted lost, exactly
cat > $WORK/slow.lua <<'LUA'
local n = 0
probe("syscalls:sys_enter_getppid", function(e) n = n + 1 local x = 0 for i = 1, 20000 do x = x + i end end)
finish(function() local lost = ltap.lost() printf("dispatched+lost %d\n", n + lost) end)
LUA
t0=$(date +%s%N)
run_ltap $WORK/out $WORK/err --max-drain 500ms -c "$PROGS/getppid_loop 200000" $WORK/slow.lua
ms=$(ms_since $t0)
expect_eq "exit" 0 "$RC"
expect_grep "the drain was cut" "^ltap: lost [0-9]+ events: the final drain stopped after 0.5 s and left them undispatched; --max-drain DURATION sets another bound$" $WORK/err
expect_eq "dispatched + lost" "dispatched+lost 200000" "$(cat $WORK/out)"
[ $ms -lt 20000 ] || fail "the run took $ms ms"
echo "ok: the run took $ms ms"

# ltap.lost() during the run reads what the end reports (one reader): a
# ring of 8 KB overflows while a begin hook waits for a command
cat > $WORK/lost.lua <<'LUA'
probe("syscalls:sys_enter_getppid", function(e) end)
begin(function()
  ltap.measure({arg[1], "100000"}, {})
  ltap.drain()
  printf("in the run %d\n", (ltap.lost()))
  exit()
end)
finish(function() printf("at the end %d\n", (ltap.lost())) end)
LUA
run_ltap $WORK/out $WORK/err -b 8K $WORK/lost.lua "$PROGS/getppid_loop"
expect_eq "lost exit" 0 "$RC"
lost=$(sed -n 's/^ltap: lost \([0-9]*\) events (.*/\1/p' $WORK/err)
[ "${lost:-0}" -gt 0 ] || fail "no events lost with an 8 KB ring"
expect_eq "lost in the run and at the end, as reported" "in the run $lost,at the end $lost" "$(paste -sd, $WORK/out)"

# a second SIGINT during that drain ends the run at once
rm -f $WORK/err
"$LTAP" -v --max-drain 60s -c "$PROGS/getppid_loop 200000" $WORK/slow.lua > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_for $WORK/err "attached in"
kill -INT $l
signal_taken $l INT # the first one taken: the drain begins, the next is a second
t0=$(date +%s%N); kill -INT $l; set +e; wait $l; RC=$?; set -e; ms=$(ms_since $t0)
expect_eq "second SIGINT exit code" 130 "$RC"
[ $ms -lt 1000 ] || fail "the second SIGINT took $ms ms to end the run"
echo "ok: the second SIGINT ended the run in $ms ms"

# missed TIMER: the missed ticks ltap reported for the 1 ms timer
missed() { sed -n 's/^ltap: timer: .*every(1.000 ms) missed \([0-9]*\) ticks: the loop was behind the clock, it ran once for them$/\1/p' $WORK/err; }
# ticks_of_1s RUNS: runs + missed ticks are the 1000 ticks of a 1 s run (a
# few more: ticks past the end that the last skip passed over)
ticks_of_1s() {
  local m=$(missed) t
  t=$(( $1 + ${m:-0} ))
  [ $t -ge 990 ] && [ $t -le 1050 ] || fail "runs $1 + missed ${m:-0} = $t, expected the 1000 ticks of 1 s"
  echo "ok: $1 runs + ${m:-0} missed = $t ticks"
}

# every(1e-9): 1 ms on a live run, said on stderr; -d 1s ends in about 1 s
t0=$(date +%s%N)
run_ltap $WORK/out $WORK/err -d 1s -e 'local n = 0 every(1e-9, function() n = n + 1 end) finish(function() print(n) end)'
ms=$(ms_since $t0)
expect_eq "exit" 0 "$RC"
expect_grep "the floor said" "^ltap: timer: -e:1: every\(1 ns\) runs every 1 ms, the shortest interval of a live run$" $WORK/err
ticks_of_1s "$(cat $WORK/out)"
[ $ms -lt 3000 ] || fail "-d 1s took $ms ms"
echo "ok: -d 1s ended after $ms ms"

# a 1 ms timer whose function takes 5 ms: its missed ticks are skipped and
# counted; SIGINT ends such a run at once
cat > $WORK/busy.lua <<'LUA'
local n = 0
every("1ms", function()
  n = n + 1 local c = os.clock() while os.clock() - c < 0.005 do end
  if n == 10 then io.stderr:write("ten busy ticks\n") end
end)
finish(function() print(n) end)
LUA
run_ltap $WORK/out $WORK/err -d 1s $WORK/busy.lua
expect_eq "exit" 0 "$RC"
[ -n "$(missed)" ] || fail "no missed ticks reported"
ticks_of_1s "$(cat $WORK/out)"
rm -f $WORK/err
"$LTAP" -v $WORK/busy.lua > $WORK/out 2> $WORK/err & l=$!; STARTED+=($l)
wait_for $WORK/err "^ten busy ticks$"
t0=$(date +%s%N); kill -INT $l; set +e; wait $l; RC=$?; set -e; ms=$(ms_since $t0)
expect_eq "SIGINT exit" 0 "$RC"
[ $ms -lt 1000 ] || fail "SIGINT took $ms ms to end a run of a 1 ms timer that takes 5 ms"
echo "ok: SIGINT ended it in $ms ms"

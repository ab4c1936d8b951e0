#!/bin/bash
# Probes sharing an event: the kernel gets the union of their filters (none
# when one probe has no filter) and each probe whose filter is not the
# kernel's whole filter is filtered again in user space, which must select
# exactly what the kernel selects. getpgid_loop 1000 calls getpgid(i % 10):
# each value 100 times, all under the comm getpgid_loop.
. "$(dirname "$0")/lib.sh"
N=1000
EV=syscalls:sys_enter_getpgid
# name|count|filter: numbers, logic, strings (COMM), the generic CPU
cat > $WORK/filters <<'EOF'
pid7|100|pid == 7
ge8|200|pid >= 8
or|400|pid < 3 || pid == 9
even|500|!(pid & 1)
odd_not5|400|pid & 1 && pid != 5
hex|100|pid == 0x3
comm|1000|COMM == "getpgid_loop"
comm_front|100|COMM ~ "getpgid*" && pid == 2
comm_middle|1000|COMM ~ "*pgid*"
comm_class|1000|COMM ~ "getp[a-h]id_lo?p"
comm_end|0|COMM ~ "*_loop"
comm_not|0|COMM != "getpgid_loop"
comm_notglob|1000|COMM ~ "!getppid*"
cpu|1000|CPU >= 0 && common_pid > 0
EOF
# the output of a run: "name count" by name
expected() { awk -F"|" -v all="${1:-}" 'BEGIN { if (all != "") print "all " all } { print $1, $2 }' $WORK/filters | sort; }

cat > $WORK/f.lua <<'LUA'
-- f.lua MODE FILTERS [NAME]: probes on one event, each counting what it sees
local EV = "syscalls:sys_enter_getpgid"
local mode, list, only = arg[1], arg[2], arg[3]
local F = {}
for line in io.lines(list) do
  local name, _, f = line:match("^([^|]+)|([^|]+)|(.+)$")
  F[#F + 1] = {name, f}
end
local n = {}
local function counter(k) n[k] = 0 return function(e) n[k] = n[k] + 1 end end
local function filtered(form)
  for i, f in ipairs(F) do
    -- every other one in the {filter=} form
    local opt = (i % 2 == 0) and {filter = f[2], stack = form == "stack"} or f[2]
    if form == "stack" and i % 2 == 1 then opt = {filter = f[2]} end
    probe(EV, opt, counter(f[1]))
  end
end
if mode == "alone" then
  for _, f in ipairs(F) do if f[1] == only then probe(EV, f[2], counter(f[1])) end end
elseif mode == "first" then        -- the unfiltered probe first
  probe(EV, counter("all"))
  filtered()
elseif mode == "last" then         -- ... and last
  filtered()
  probe(EV, counter("all"))
elseif mode == "stack_all" then    -- the unfiltered probe asks for stacks: the perf ring serves all
  probe(EV, {stack = true}, counter("all"))
  filtered()
elseif mode == "stack_filtered" then -- only filtered probes, some with stacks: the union in the perf filter
  filtered("stack")
elseif mode == "filtered" then     -- only filtered probes: the union in the instance's filter
  filtered()
elseif mode == "glob_all" then     -- a glob without a filter takes the event too
  n.all = 0
  probe("syscalls:sys_enter_getp*", function(e) if e.name == EV then n.all = n.all + 1 end end)
  filtered()
elseif mode == "glob_filtered" then -- a glob with a filter, sharing with a named probe
  probe(EV, counter("all"))
  probe("syscalls:sys_enter_getpgi*", F[1][2], counter(F[1][1]))
elseif mode == "same" then         -- one filter twice: the kernel applies it, nothing in user space
  probe(EV, F[1][2], counter("a"))
  probe(EV, {filter = F[1][2]}, counter("b"))
end
finish(function() for k, v in sorted(n, "key") do printf("%s %d\n", k, v) end end)
LUA

# each filter alone, applied by the kernel only
while IFS='|' read -r name count filter; do
  run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/f.lua alone $WORK/filters "$name"
  expect_eq "kernel alone: $filter" "$name $count" "$(cat $WORK/out)"
done < $WORK/filters

# shared with an unfiltered probe (either order), as {filter=} or a string,
# on the ftrace ring and on the perf ring, with a glob; then only filtered
# probes (a union in the kernel, each again in user space)
for mode in first last stack_all glob_all; do
  run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/f.lua $mode $WORK/filters
  expect_eq "shared with an unfiltered probe ($mode)" "$(expected $N)" "$(sort $WORK/out)"
done
for mode in filtered stack_filtered; do
  run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/f.lua $mode $WORK/filters
  expect_eq "only filtered probes ($mode)" "$(expected)" "$(sort $WORK/out)"
done
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/f.lua glob_filtered $WORK/filters
expect_eq "a filtered glob and an unfiltered probe" "$(printf 'all %d\npid7 100' $N)" "$(cat $WORK/out)"
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/f.lua same $WORK/filters
expect_eq "one filter twice" "$(printf 'a 100\nb 100')" "$(cat $WORK/out)"

# replay of a recording: the file has what the kernel let through (all of
# it, or the union); every filter applies in user space, as live
for mode in first filtered; do
  run_ltap $WORK/live $WORK/err --record $WORK/$mode.dat -c "$PROGS/getpgid_loop $N" $WORK/f.lua $mode $WORK/filters
  expect_eq "live before recording ($mode)" 0 "$RC"
  run_ltap $WORK/replay $WORK/err --input $WORK/$mode.dat $WORK/f.lua $mode $WORK/filters
  expect_eq "replay of the recording ($mode)" "$(cat $WORK/live)" "$(cat $WORK/replay)"
done

# a string field of the format: the filename of sched_process_exec
cat > $WORK/x.lua <<'LUA'
local n = {all = 0, loop = 0, sh = 0}
probe("sched:sched_process_exec", function(e) n.all = n.all + 1 end)
probe("sched:sched_process_exec", 'filename ~ "*getpgid_loop"', function(e) n.loop = n.loop + 1 end)
probe("sched:sched_process_exec", {filter = 'filename ~ "*/getp*_loop"'}, function(e) n.sh = n.sh + 1 end)
finish(function() printf("all=%d loop=%d both=%d\n", n.all, n.loop, n.sh) end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 10; $PROGS/getppid_loop 10; $PROGS/getpgid_loop 10" $WORK/x.lua
expect_grep "string field of the format, shared" "^all=4 loop=2 both=3$" $WORK/out

# a filter only the kernel can apply cannot be shared: said, not dropped
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 10" -e "probe('$EV', function() end) probe('$EV', 'pid.function == 3', function() end)"
[ "$RC" -ne 0 ] || fail "a kernel-only filter on a shared event was accepted"
expect_grep "kernel-only filter, shared" "bad filter 'pid.function == 3': 'pid.function' is applied by the kernel only \(another probe shares the event" $WORK/err

# ltap follows task names through task and exec events: a script's filter
# on them must not hide them from ltap (the comm after exec was lost)
cat > $WORK/t.lua <<'LUA'
local comms, n = {}, 0
probe("sched:sched_process_exec", 'filename ~ "*nothing"', function(e) n = n + 1 end)
probe("task:task_rename", 'oldcomm == "nothing"', function(e) n = n + 1 end)
probe("task:task_newtask", 'comm == "nothing"', function(e) n = n + 1 end)
probe("syscalls:sys_enter_mmap", function(e) comms[e.comm] = true end)
finish(function() for k in sorted(comms, "key") do printf("%s ", k) end printf("filtered %d\n", n) end)
LUA
run_ltap $WORK/out $WORK/err -c "true; exec $PROGS/getpgid_loop 1" $WORK/t.lua
expect_eq "names followed under filters on the task events" "getpgid_loop sh filtered 0" "$(cat $WORK/out)"

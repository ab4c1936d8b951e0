#!/bin/bash
# -c counts what the command did from its exec on, as perf stat's
# enable-on-exec does: the same deterministic commands under perf stat and
# ltap -c give the same counts; a --record of the run replays to the same
# counts; nothing is counted under ltap's own name.
#
# Same environment and argv for both; ASLR off for both (setarch -R: the
# page tables a process needs depend on where its mappings land). perf
# adds to its command's environment (PATH=/usr/lib/perf-core:..., PREFIX,
# PERF_BUILDID_DIR), and the size of the strings on the new stack decides
# whether writing the auxiliary vector after the exec touches one more
# page: ltap runs with exactly the environment perf gives its command.
# perf stops counting a task in perf_event_exit_task(), before the kernel
# tears down its address space; ltap sees the teardown (the pages freed at
# exit, a few GFP_NOWAIT pages of its TLB batching), which this script
# leaves out: a task's events after its own sched_process_exit, the
# tracepoint right before perf_event_exit_task() on kernels whose format has
# group_dead (6.16 on). Syscalls, execs, renames and exits match on every
# run. Page allocations also depend on the machine's caches, which other
# processes change between two runs: counted without __GFP_NORETRY
# (0x10000: readahead of evicted file pages, a new slab page when a shared
# kmalloc cache ran dry), and after a warm-up run they match exactly unless
# a cache changed between the two runs (a directory block or file page
# evicted meanwhile: ext4 buffer pages, one more copy-on-write fault or page
# table); so a pair is tried up to 4 times and one must agree exactly.
# docs/design.md: "-c counts".
. "$(dirname "$0")/lib.sh"
grep -q group_dead $T/events/sched/sched_process_exit/format ||
  { echo "SKIP: this kernel traces sched_process_exit after exit_mm: the exit teardown cannot be left out"; exit 0; }
export PYTHONHASHSEED=0
gfp='!(gfp_flags & 0x10000)'
events=(kmem:mm_page_alloc sched:sched_process_exec syscalls:sys_enter_getppid syscalls:sys_enter_read
        syscalls:sys_enter_mmap syscalls:sys_enter_openat syscalls:sys_enter_exit_group task:task_rename
        sched:sched_process_exit)
cat > $WORK/counts.lua <<LUA
local names = {$(printf '"%s", ' "${events[@]}")}
local n, comms, exited, after = {}, {}, {}, 0
for _, ev in ipairs(names) do
  n[ev] = 0
  -- the gfp test in Lua, not as a filter: libtraceevent 1.7 leaks on a '!'
  -- filter in user space (a replay)
  probe(ev, function(e)
    if ev == "kmem:mm_page_alloc" and e.gfp_flags & 0x10000 ~= 0 then return end
    if exited[e.tid] then after = after + 1 return end
    n[ev] = n[ev] + 1
    comms[e.comm] = true
    if ev == "sched:sched_process_exit" then exited[e.tid] = true end
  end)
end
finish(function()
  for _, ev in ipairs(names) do printf("%d,%s\n", n[ev], ev) end
  if comms.ltap then print("comm ltap seen") end
  io.stderr:write("after exit: ", after, "\n")
end)
LUA
perf_counts() {
  local args=()
  for ev in "${events[@]}"; do
    args+=(-e "$ev")
    [ "$ev" == kmem:mm_page_alloc ] && args+=(--filter "$gfp")
  done
  setarch -R perf stat -x, "${args[@]}" -o $WORK/perf.csv -- "$@" > /dev/null
  awk -F, '/^[0-9]/{print $1 "," $3}' $WORK/perf.csv
}
setarch -R perf stat -e sched:sched_process_exec -o /dev/null -- /usr/bin/env -0 > $WORK/perf.env
mapfile -d '' perf_env < $WORK/perf.env
# ltap in that environment: env -i drops pidnote's LTAP_BIN, so ltap itself
# runs, its pid noted as pidnote notes it (env and setarch exec: one pid)
perf_env_ltap() {
  env -i "${perf_env[@]}" setarch -R "${LTAP_BIN:-$LTAP}" "$@" & local p=$!
  echo $p >> "${LTAP_PID_LOG:-/dev/null}"
  wait $p
}
perf_env_ltap -c "/usr/bin/env -0" -e 'probe("sched:sched_process_exec", function() end)' > $WORK/ltap.env 2> $WORK/err
[ "${#perf_env[@]}" -gt 0 ] && cmp -s $WORK/perf.env $WORK/ltap.env ||
  fail "the command's environment under ltap -c differs from perf stat's: $(diff <(tr '\0' '\n' < $WORK/perf.env) <(tr '\0' '\n' < $WORK/ltap.env))"
python=$(command -v python3.11 || true)
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
for cmd in "$PROGS/getppid_loop 1000" "$python -c pass" "/usr/bin/dd if=/dev/zero of=/dev/null bs=1M count=10 status=none"; do
  $cmd > /dev/null # warm the caches
  same=0
  for round in 1 2 3 4; do
    # shellcheck disable=SC2086
    p=$(perf_counts $cmd)
    set +e; perf_env_ltap -c "$cmd" $WORK/counts.lua > $WORK/out 2> $WORK/err; RC=$?; set -e
    expect_eq "'$cmd' exit" 0 "$RC"
    [ "$(grep -c . <<< "$p")" == "${#events[@]}" ] || fail "perf stat printed: $p"
    expect_eq "'$cmd' round $round: all but page allocations" "$(grep -v mm_page_alloc <<< "$p")" "$(grep -v mm_page_alloc $WORK/out)"
    echo "'$cmd' round $round: page allocations perf stat $(grep -m1 mm_page_alloc <<< "$p"), ltap $(grep -m1 mm_page_alloc $WORK/out)"
    if [ "$p" == "$(cat $WORK/out)" ]; then same=1; break; fi
  done
  [ $same == 1 ] || fail "'$cmd': ltap -c and perf stat never counted the same page allocations"
  echo "ok: '$cmd': ltap -c counts = perf stat counts"
done

# the counts begin at the exec, not at the fork: 1000 getppid, 1 exec, 1 rename
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 1000" $WORK/counts.lua
expect_grep "getppid" "^1000,syscalls:sys_enter_getppid$" $WORK/out
expect_grep "one exec" "^1,sched:sched_process_exec$" $WORK/out
expect_grep "one rename" "^1,task:task_rename$" $WORK/out

# probes on the perf ring (stack=true) start at the exec too (enable_on_exec)
cat > $WORK/stack.lua <<'LUA'
local n = {}
probe("syscalls:sys_enter_getppid", {stack = true}, function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
probe("syscalls:sys_enter_close", {stack = true}, function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n, "key") do printf("%s %d\n", k, v) end end)
LUA
p=$(perf stat -x, -e syscalls:sys_enter_getppid,syscalls:sys_enter_close -- $PROGS/getppid_loop 500 2>&1 >/dev/null | awk -F, '{s += $1} END {print s}')
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 500" $WORK/stack.lua
expect_eq "stack=true counts = perf stat's" "getppid_loop $p" "$(cat $WORK/out)"

# --record of a -c run replays to the live counts: the gate is in the file
run_ltap $WORK/live $WORK/err --record $WORK/run.dat -c "$python -c pass" $WORK/counts.lua
expect_eq "record exit" 0 "$RC"
run_ltap $WORK/replay $WORK/err --input $WORK/run.dat $WORK/counts.lua
expect_eq "replay exit" 0 "$RC"
expect_eq "replay counts = live counts" "$(cat $WORK/live)" "$(cat $WORK/replay)"
! grep -q "comm ltap" $WORK/live || fail "an event of the command before its exec was counted under comm ltap"
echo "ok: no event under comm ltap"

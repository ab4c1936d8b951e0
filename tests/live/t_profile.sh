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

# ltap.stackcount (what ltap profile counts with: frames kept per distinct
# stack, named at the end) gives the folded stacks and the leaf rows that
# the per-sample path (e:folded(), e:frame(1)) gives on the same samples:
# short-lived processes (each exec'd image, its mappings from the ring),
# hot, and JIT code whose map is gone when the profile ends
cat > $WORK/sc.lua <<'LUA'
local folded = require("ltap.folded")
local overhead = require("ltap.overhead")
local counts, per, acc = ltap.stackcount(), {}, overhead.new()
profile(999, function(e)
  counts:add(e)
  folded.add(per, e)
  overhead.add(acc, e)
end)
finish(function()
  local acc2 = overhead.new()
  overhead.add_counts(acc2, counts)
  -- a leaf without a symbol shows an address, of one process or another
  local function rows(a)
    local t = {}
    for k, n in pairs(a.rows) do k = k:gsub("%[%.%] 0x%x+$", "[.] 0x?"); t[k] = (t[k] or 0) + n end
    return folded.lines(t)
  end
  local a, b = folded.lines(per), folded.lines(counts:folded())
  local ra, rb = rows(acc), rows(acc2)
  local same = table.concat(a, "\n") == table.concat(b, "\n") and table.concat(ra, "\n") == table.concat(rb, "\n")
  local jit = 0
  for _, l in ipairs(b) do if l:find(";jit_spin ") then jit = jit + 1 end end
  printf("%s, %s, jit %s\n", same and "same" or "differ", counts:total() == acc.total and "total ok" or "total bad",
    jit > 0 and "named" or "unnamed")
  if not same then
    for i = 1, math.max(#a, #b) do if a[i] ~= b[i] then io.stderr:write("per sample: ", tostring(a[i]), "\ncounted:    ", tostring(b[i]), "\n") break end end
  end
  io.stderr:write(string.format("%d samples, %d stacks (%d distinct)\n", counts:total(), #b, #counts))
end)
LUA
run_ltap $WORK/out $WORK/err -c "sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do ls / > /dev/null; done; $PROGS/hot 0.3; $PROGS/jit 0.3 > /dev/null'" $WORK/sc.lua
cat $WORK/err
expect_eq "stack count exit" 0 "$RC"
expect_eq "stack count against the per-sample path" "same, total ok, jit named" "$(cat $WORK/out)"

# ring_kb SCRIPT: kb, the per-CPU ring of ltap's instance while SCRIPT runs.
# A profile-only run's instance carries task events alone: 1 MB, not -b's.
ring_kb() {
  printf '%s\n' "$1" > $WORK/ring.lua
  : > $WORK/ring.err
  "$LTAP" -v -b 8M $WORK/ring.lua > /dev/null 2> $WORK/ring.err & l=$!; STARTED+=($l)
  wait_attached $WORK/ring.err
  kb=$(cat $T/instances/ltap-$l/buffer_size_kb)
  kill -INT $l; wait $l || fail "ltap exit code $?"
}
# (the kernel rounds a size up to whole sub-buffers: 1024 reads 1027)
ring_kb 'profile(99, function() end)'
[ "$kb" -ge 1024 ] && [ "$kb" -lt 2048 ] || fail "a profile's instance ring: $kb KiB, not 1 MB"
ring_kb 'profile(99, function() end) probe("syscalls:sys_enter_getpgid", function() end)'
[ "$kb" -ge 8192 ] && [ "$kb" -lt 9216 ] || fail "a tracepoint's instance ring: $kb KiB, not -b's 8 MB"
echo "ok: instance rings"

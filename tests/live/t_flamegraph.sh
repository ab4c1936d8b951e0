# Flame graphs from live data: perf script of a fresh `perf record -g`
# folded by `ltap flamegraph` exactly as an independent fold (the rules of
# stackcollapse-perf.pl for plain C names) gives; system-wide profiles leave
# ltap's own samples out; a frame-pointer chain gone astray is cut at its
# first unmapped address, so the SVG keeps a readable height.

# 1. perf record -g of hot, perf script, folded by ltap and by awk
if perf version >/dev/null 2>&1; then
  perf record -q -g -F 499 -o $WORK/perf.data -- $PROGS/hot 0.5 >/dev/null 2>&1
  perf script -i $WORK/perf.data > $WORK/perf.txt 2>/dev/null
  # header "comm tid time: period event:", frames "addr sym+off (module)", blank
  awk '
    /^[^ \t]/ { comm = $1; period = $(NF - 1); stack = ""; next }
    /^[ \t]+[0-9a-f]+ / {
      sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
      if (sym == "[unknown]") { mod = $NF; gsub(/[()]/, "", mod); n = split(mod, p, "/"); sym = (mod == "[unknown]") ? "[unknown]" : "[" p[n] "]" }
      stack = sym (stack == "" ? "" : ";" stack); next }
    /^$/ { if (comm != "") c[comm ";" stack] += period; comm = "" }
    END { for (s in c) print s, c[s] }' $WORK/perf.txt | LC_ALL=C sort > $WORK/want
  run_ltap $WORK/got $WORK/err flamegraph --folded - $WORK/perf.txt
  expect_eq "flamegraph exit" 0 "$RC"
  expect_eq "perf script folded" "$(cat $WORK/want)" "$(cat $WORK/got)"
  share=$(awk '$1 ~ /^hot;/ { t += $NF; if ($1 ~ /;main;hot_spin$/) h += $NF } END { print (t ? int(100 * h / t) : 0) }' $WORK/got)
  [ "$share" -ge 80 ] || fail "hot_spin has $share% of hot's samples"
  echo "ok: hot_spin $share% of hot's samples, $(wc -l < $WORK/got) stacks"
  run_ltap $WORK/out $WORK/err flamegraph $WORK/perf.txt $WORK/perf.svg
  expect_eq "perf script to SVG exit" 0 "$RC"
  expect_grep "hot_spin drawn" 'data-name="hot_spin"' $WORK/perf.svg
else
  echo "skip: perf is not installed: perf script input not checked"
fi

# 2. system-wide, ltap's own samples are left out (kernel BPF filter, or in
# user space); the handler keeps ltap busy so that it would be sampled
cat > $WORK/self.lua <<'LUA'
local self = tonumber(io.open("/proc/self/stat"):read("l"):match("^(%d+)"))
local own, other = 0, 0
profile(999, function(e)
  if e.pid == self then own = own + 1 else other = other + 1 end
  local x = 0
  for i = 1, 20000 do x = x + i end
end)
finish(function() printf("own %d others %s\n", own, other > 100 and "many" or tostring(other)) end)
LUA
run_ltap $WORK/out $WORK/err -d 1s $WORK/self.lua
expect_eq "self exit" 0 "$RC"
expect_eq "ltap's own samples" "own 0 others many" "$(cat $WORK/out)"

# 3. a chain that loops on an unmapped return address (127 frames from the
# kernel) ends at that address: one [unknown] frame
run_ltap $WORK/out $WORK/err profile -F 499 -c "$PROGS/badchain 0.5" --folded $WORK/bad.folded --svg $WORK/bad.svg --top 1
expect_eq "badchain exit" 0 "$RC"
cat $WORK/bad.folded
expect_grep "cut at the unmapped frame" '^badchain;\[unknown\];spin_on_bad_frame [0-9]+$' $WORK/bad.folded
# every sample in spin_on_bad_frame is cut there (kernel frames, "_[k]",
# may sit on top); a few others (main calling clock_gettime) are short
bad=$(grep -c 'spin_on_bad_frame' $WORK/bad.folded || true)
cut=$(grep -c '^badchain;\[unknown\];spin_on_bad_frame\( \|;[^ ]*_\[k\] \)' $WORK/bad.folded || true)
expect_eq "stacks through spin_on_bad_frame, all cut" "$bad" "$cut"
deepest=$(awk '{ n = split($1, f, ";"); u = 0; for (i = 1; i <= n; i++) u += f[i] !~ /_\[k\]$/; if (u > d) d = u } END { print d }' $WORK/bad.folded)
[ "$deepest" -le 8 ] || fail "a stack of $deepest user frames"
height=$(grep -o -m1 '<svg [^>]* height="[0-9]*"' $WORK/bad.svg | sed 's/.*height="\([0-9]*\)"/\1/')
echo "badchain: at most $deepest user frames, SVG height $height"
[ "$height" -le 400 ] || fail "SVG height $height"

# system-wide with badchain running: the SVG fits a 1400x900 window
$PROGS/badchain 3 > /dev/null & STARTED+=($!)
run_ltap $WORK/out $WORK/err profile -F 499 -a -d 1s --svg $WORK/all.svg --folded $WORK/all.folded --top 1
expect_eq "-a exit" 0 "$RC"
expect_grep "badchain sampled, cut" '^badchain;\[unknown\];spin_on_bad_frame [0-9]+$' $WORK/all.folded
height=$(grep -o -m1 '<svg [^>]* height="[0-9]*"' $WORK/all.svg | sed 's/.*height="\([0-9]*\)"/\1/')
echo "-a: SVG height $height"
[ "$height" -le 800 ] || fail "-a: SVG height $height"
kill $! 2>/dev/null || true

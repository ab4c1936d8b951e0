# uprobes by name, return probes, USDT markers with a semaphore, latency,
# the timeline and ucalls scripts, clean-up after SIGKILL, kprobes.
P=$PROGS/uprobe_target

cat > $WORK/u.lua <<LUA
local n, m, g, args, rets = 0, 0, 0, {}, {}
probe("u:$P:f arg2:string", function(e) n = n + 1 if n <= 3 then args[#args + 1] = e.arg1 .. "/" .. e.arg2 end end)
probe("ur:$P:f", function(e) rets[e.ret] = true end)
probe("usdt:$P:ltap_test:m", function(e) m = m + 1 margs = e.arg1 .. "," .. e.arg2 .. "," .. e.arg3 end)
probe("usdt:$P:guarded", function(e) g = g + 1 end)
local t = {}
probe("u:$P:sleep10", function(e) t[e.tid] = e.time end)
probe("ur:$P:sleep10", function(e) lat = (e.time - t[e.tid]) / 1e6 end)
finish(function()
  printf("f=%d m=%d guarded=%d args=%s ret40=%s ret0=%s margs=%s\n", n, m, g, table.concat(args, " "),
    tostring(rets[40] or false), tostring(rets[0] or false), margs)
  printf("sleep10 latency %.3f ms\n", lat)
end)
LUA
run_ltap $WORK/out $WORK/err -c "$P 1234 567" $WORK/u.lua
expect_eq "exit" 0 "$RC"
expect_grep "counts, arguments, strings, return values, USDT" \
  "^f=1234 m=567 guarded=567 args=0/hello 1/hello 2/hello ret40=true ret0=true margs=566,42,-7$" $WORK/out
expect_grep "the program saw the semaphore set" "^guarded 567$" $WORK/out
# the entry and return probes of sleep10 fire inside the program's own
# measurement of the call, and the call sleeps 10 ms: 10 <= latency <= its
# clock (+0.02 ms: the printed rounding, the trace clock's drift over 10 ms)
lat=$(awk '$1 == "sleep10" && $2 == "latency" {print $3}' $WORK/out)
own=$(awk '$1 == "clock" && $2 == "sleep10" {print $3}' $WORK/out)
awk -v l="$lat" -v o="$own" 'BEGIN{exit !(l != "" && o != "" && l >= 10 && l <= o + 0.02)}' ||
  fail "return-probe latency of a 10 ms sleep: $lat ms, the program's clock $own ms"
echo "ok: sleep10 latency $lat ms (the program's clock: $own ms)"

# without a tracer the semaphore is 0 and the guarded marker is skipped
$P 10 10 > $WORK/plain
expect_grep "semaphore clear without ltap" "^guarded 0$" $WORK/plain

# the timeline of five phases agrees with the program's own clock: the
# program prints, for each phase X, the time just before calling it (bX)
# and inside it (iX); the probe on X fires between the two, so ltap's time
# from phase_a to phase_X lies in [bX - ia, iX - ba], give or take 0.1 ms
# (printed rounding, the trace clock's drift over 100 ms), however long the
# machine kept the program waiting
run_ltap $WORK/out $WORK/err timeline -c "$P 1 1 phases" u:$P:phase_a u:$P:phase_b u:$P:phase_c u:$P:phase_d u:$P:phase_e
expect_eq "exit" 0 "$RC"
expect_grep "first marker at 0" "^0\.000 phase_a$" $WORK/out
for ph in b c d e; do
  # ltap's elapsed time of phase_X: the sum of the phase durations before it
  ours=$(awk -v p=phase_$ph 'BEGIN{s=0} $1 ~ /^phase_/ && NF == 2 && $2 ~ /^[0-9.]+$/ && $1 < p {s += $2} END{print s}' $WORK/out)
  awk -v p=phase_$ph -v ours="$ours" '$1 == "phase" && NF == 4 { i[$2] = $3; b[$2] = $4 }
    END { lo = b[p] - i["phase_a"] - 0.1; hi = i[p] - b["phase_a"] + 0.1
          printf "phase %s: ltap %s ms, the program [%.3f, %.3f]\n", p, ours, lo, hi
          exit !((p in i) && ours >= lo && ours <= hi) }' $WORK/out ||
    { cat $WORK/out; fail "phase_$ph: ltap's time is outside the program's"; }
done
echo "ok: timeline within the program's own clock"

# the same timeline from a marker file, as a Perfetto (Chrome JSON) trace
printf 'u:%s:phase_a\n# a comment\nu:%s:phase_b\nu:%s:phase_c\n' $P $P $P > $WORK/markers
run_ltap $WORK/out $WORK/err timeline -c "$P 1 1 phases" --markers $WORK/markers --perfetto $WORK/tl.json
expect_eq "timeline --markers exit" 0 "$RC"
python3 - $WORK/tl.json $WORK/out <<'PY' || fail "perfetto trace"
import json, sys
t = json.load(open(sys.argv[1]))
slices = [e for e in t["traceEvents"] if e["ph"] == "X"]
assert [e["name"] for e in slices] == ["phase_a", "phase_b", "phase_c"], slices
assert slices[0]["ts"] == 0, slices[0]
# each slice lasts from its phase's call to the next's: within the program's
# own bracket of the two calls (see above), in us
prog = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4 and f[0] == "phase":
        prog[f[1]] = (float(f[2]) * 1000, float(f[3]) * 1000)   # in, before
for s, nxt in zip(slices[:2], ["phase_b", "phase_c"]):
    lo = prog[nxt][1] - prog[s["name"]][0] - 100
    hi = prog[nxt][0] - prog[s["name"]][1] + 100
    assert lo <= s["dur"] <= hi, (s, lo, hi)
print("ok: perfetto slices phase_a..c with their durations")
PY

# markers written to trace_marker by a program (copied into ltap's instance),
# and by the script itself (ltap.mark)
if [ -e $T/options/copy_trace_marker ]; then
  # the writer's own clock around the first two writes (in us) bounds the
  # start phase from above; its 50 ms sleep, from below
  cat > $WORK/markers.sh <<SH
a=\$(date +%s%N); echo start > $T/trace_marker; sleep 0.05; echo LinuxBoot copy kernel > $T/trace_marker
b=\$(date +%s%N); echo \$(( (b - a) / 1000 )) > $WORK/bracket; sleep 0.03; echo stop > $T/trace_marker
SH
  run_ltap $WORK/out $WORK/err timeline -c "sh $WORK/markers.sh" marker
  expect_eq "marker timeline exit" 0 "$RC"
  expect_eq "marker names" "0.000 start|LinuxBoot copy kernel|stop" "$(awk 'NR==1{printf "%s %s", $1, $2} NR==2||NR==3{$1=""; sub(/^ /,""); printf "|%s", $0}' $WORK/out)"
  ms=$(awk '$1 == "start" {print $2}' $WORK/out)
  us=$(cat $WORK/bracket)
  awk -v m="$ms" -v us="$us" 'BEGIN{exit !(m >= 50 && m <= us / 1000 + 0.1)}' ||
    fail "start phase lasted $ms ms, expected 50 .. $us us (the writer's clock)"
  echo "ok: start phase $ms ms (the writer's clock: at most $us us)"
else
  echo "skip: marker timeline: this kernel has no options/copy_trace_marker"
fi
run_ltap $WORK/out $WORK/err -d 100ms -e 'probe("ftrace:print", function(e) print(e.buf) end) begin(function() ltap.mark("hello from the script") end)'
expect_eq "ltap.mark" "hello from the script" "$(cat $WORK/out)"

# a library by name, found the way the dynamic linker would
run_ltap $WORK/out $WORK/err -c "$P 1 1" -e "local n = 0 probe('u:libc:malloc', function(e) n = n + 1 end) finish(function() print(n > 0) end)"
expect_eq "u:libc:malloc" "true" "$(grep -x 'true\|false' $WORK/out)"

# ucalls: exact calls per function, latency with -L
run_ltap $WORK/out $WORK/err ucalls -c "$P 321 1" -L "$P:f" "$P:sleep*"
expect_eq "exit" 0 "$RC"
expect_grep "ucalls f" "^f +321 +[0-9.]+ +[0-9.]+$" $WORK/out
expect_grep "ucalls sleep10" "^sleep10 +1 +[0-9.]+ +[0-9.]+$" $WORK/out

# listing markers and functions
run_ltap $WORK/out $WORK/err list -v "usdt:$P:*"
expect_grep "list usdt" "^usdt:$P:ltap_test:m \(semaphore\)  -8@%rax -4@\\\$42 -4@\\\$-7$" $WORK/out
run_ltap $WORK/out $WORK/err list "u:$P:phase_*"
expect_eq "list functions" 5 "$(grep -c "^u:$P:phase_" $WORK/out)"
# a stripped executable defines no function: an empty table, not a sanitizer abort
run_ltap $WORK/out $WORK/err list 'u:/usr/bin/true:*'
expect_eq "list of an ELF without functions" "1 ltap: list: nothing in /usr/bin/true matches '*'" "$RC $(cat $WORK/err)"

# errors name the thing
run_ltap $WORK/out $WORK/err -e "probe('u:$P:nosuchfn', function() end)"
expect_grep "unknown function" "uprobe: $P has no function 'nosuchfn'" $WORK/err
run_ltap $WORK/out $WORK/err -e "probe('usdt:$P:nosuch', function() end)"
expect_grep "unknown marker" "usdt: $P has no marker 'nosuch'" $WORK/err
run_ltap $WORK/out $WORK/err -e "probe('u:/etc/passwd:main', function() end)"
expect_grep "not ELF" "uprobe: /etc/passwd: not an ELF file" $WORK/err
run_ltap $WORK/out $WORK/err -e "probe('u:$P:f arg9:string', function() end)"
expect_grep "bad modifier" "uprobe: bad modifier 'arg9:string'" $WORK/err

# kprobes: this kernel has none; the message says so (and the test says why it skips more)
if [ -e $T/kprobe_events ]; then
  run_ltap $WORK/out $WORK/err -d 100ms -e "probe('k:do_nanosleep', function() end)"
  expect_eq "kprobe exit" 0 "$RC"
else
  run_ltap $WORK/out $WORK/err -e "probe('k:do_nanosleep', function() end)"
  expect_grep "no kprobes" "kprobe: this kernel has no kprobes" $WORK/err
  echo "skip: kprobe probes: this kernel has no kprobe_events"
fi

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
  printf("latency_ok=%s (%.3f ms)\n", tostring(lat >= 10 and lat < 30), lat)
end)
LUA
run_ltap $WORK/out $WORK/err -c "$P 1234 567" $WORK/u.lua
expect_eq "exit" 0 "$RC"
expect_grep "counts, arguments, strings, return values, USDT" \
  "^f=1234 m=567 guarded=567 args=0/hello 1/hello 2/hello ret40=true ret0=true margs=566,42,-7$" $WORK/out
expect_grep "the program saw the semaphore set" "^guarded 567$" $WORK/out
expect_grep "return-probe latency of a 10 ms sleep" "^latency_ok=true" $WORK/out

# without a tracer the semaphore is 0 and the guarded marker is skipped
$P 10 10 > $WORK/plain
expect_grep "semaphore clear without ltap" "^guarded 0$" $WORK/plain

# the timeline of five phases agrees with the program's own clock within 1 ms
run_ltap $WORK/out $WORK/err timeline -c "$P 1 1 phases" u:$P:phase_a u:$P:phase_b u:$P:phase_c u:$P:phase_d u:$P:phase_e
expect_eq "exit" 0 "$RC"
expect_grep "first marker at 0" "^0\.000 phase_a$" $WORK/out
for ph in b c d e; do
  prog=$(awk -v p=phase_$ph '$1 == "phase" && $2 == p {print $3}' $WORK/out)
  # ltap's elapsed time of phase_X: the sum of the phase durations before it
  ours=$(awk -v p=phase_$ph 'BEGIN{s=0} $1 ~ /^phase_/ && NF == 2 && $2 ~ /^[0-9.]+$/ && $1 < p {s += $2} END{print s}' $WORK/out)
  awk -v a="$prog" -v b="$ours" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(d < 1.0)}' ||
    { cat $WORK/out; fail "phase_$ph: program says $prog ms, ltap $ours ms"; }
done
echo "ok: timeline within 1 ms of the program's clock"

# the same timeline from a marker file, as a Perfetto (Chrome JSON) trace
printf 'u:%s:phase_a\n# a comment\nu:%s:phase_b\nu:%s:phase_c\n' $P $P $P > $WORK/markers
run_ltap $WORK/out $WORK/err timeline -c "$P 1 1 phases" --markers $WORK/markers --perfetto $WORK/tl.json
expect_eq "timeline --markers exit" 0 "$RC"
python3 - $WORK/tl.json <<'PY' || fail "perfetto trace"
import json, sys
t = json.load(open(sys.argv[1]))
slices = [e for e in t["traceEvents"] if e["ph"] == "X"]
assert [e["name"] for e in slices] == ["phase_a", "phase_b", "phase_c"], slices
assert slices[0]["ts"] == 0 and 19000 < slices[0]["dur"] < 25000, slices[0]   # phase_a: 20 ms, in us
assert 29000 < slices[1]["dur"] < 35000, slices[1]
print("ok: perfetto slices phase_a..c with their durations")
PY

# markers written to trace_marker by a program (copied into ltap's instance),
# and by the script itself (ltap.mark)
if [ -e $T/options/copy_trace_marker ]; then
  run_ltap $WORK/out $WORK/err timeline -c "sh -c 'echo start > $T/trace_marker; sleep 0.05; echo LinuxBoot copy kernel > $T/trace_marker; sleep 0.03; echo stop > $T/trace_marker'" marker
  expect_eq "marker timeline exit" 0 "$RC"
  expect_eq "marker names" "0.000 start|LinuxBoot copy kernel|stop" "$(awk 'NR==1{printf "%s %s", $1, $2} NR==2||NR==3{$1=""; sub(/^ /,""); printf "|%s", $0}' $WORK/out)"
  ms=$(awk '$1 == "start" {print $2}' $WORK/out)
  awk -v m="$ms" 'BEGIN{exit !(m >= 50 && m < 60)}' || fail "start phase lasted $ms ms, expected 50..60"
  echo "ok: start phase $ms ms"
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

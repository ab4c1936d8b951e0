# Exit status and elapsed time, as perf stat has them; the precedence of
# ltap -c's status (README "Exit status"); numbers that do not fit are
# refused instead of wrapping.
NOP='probe("sched:sched_process_exec", function() end)'

# ltap stat: the command's status is ltap's; perf stat agrees
run_ltap $WORK/out $WORK/err stat -e task-clock -- sh -c 'exit 3'
expect_eq "stat: status 3" 3 "$RC"
set +e; perf stat -e task-clock -- sh -c 'exit 3' 2>/dev/null; p=$?; set -e
expect_eq "perf stat: status 3" 3 "$p"
# a command killed by a signal: perf stat names the signal and exits 0
set +e; perf stat -e task-clock -- sh -c 'kill -TERM $$' 2>$WORK/perr; p=$?; set -e
run_ltap $WORK/out $WORK/err stat -e task-clock -- sh -c 'kill -TERM $$'
expect_eq "stat: killed by a signal, as perf stat" "$p" "$RC"
expect_eq "stat: the signal named as perf stat names it" "$(grep -m1 Terminated $WORK/perr)" "$(grep -m1 Terminated $WORK/err)"
# -r N: the last run's status
run_ltap $WORK/out $WORK/err stat -r 2 -e task-clock -- sh -c 'exit 4'
expect_eq "stat -r 2: status 4" 4 "$RC"

# the report goes to standard error, the command's output stays alone on stdout
run_ltap $WORK/out $WORK/err stat -e task-clock -- echo hello
expect_eq "stdout is the command's" "hello" "$(cat $WORK/out)"
expect_grep "report on stderr" "^ Performance counter stats for 'echo hello':$" $WORK/err
# -o FILE
run_ltap $WORK/out $WORK/err stat -e task-clock -o $WORK/report -- echo hello
expect_grep "report in -o FILE" "^ Performance counter stats for 'echo hello':$" $WORK/report
! grep -q "Performance counter" $WORK/err || fail "-o: the report also went to stderr"
echo "ok: -o FILE only"

# elapsed is wall time with -a and a command (sleep 0.5: between 0.5 and 1 s)
run_ltap $WORK/out $WORK/err stat -a -e context-switches -- sleep 0.5
expect_grep "stat -a elapsed" "^ +0\.[5-9][0-9]{8} seconds time elapsed$" $WORK/err
run_ltap $WORK/out $WORK/err stat -a --json -e context-switches -- sleep 0.5
python3 - $WORK/err <<'PY' || fail "json elapsed_ns"
import json, sys
d = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][0])
ns = d["elapsed_ns"]["mean"]
assert 5e8 <= ns < 1e9, ns
print("ok: --json elapsed_ns", ns)
PY

# -I with -d: every interval, the last one at the end of the run too
run_ltap $WORK/out $WORK/err stat -a -I 100 -d 400ms -e context-switches
expect_eq "stat -I 100 -d 400ms: 4 intervals" "0.100000000 0.200000000 0.300000000 0.400000000" \
  "$(awk '/context-switches/ && NF == 3 {print $1}' $WORK/err | tr '\n' ' ' | sed 's/ $//')"

# ltap -c: the command's status when it failed or was killed
run_ltap $WORK/out $WORK/err -c "sh -c 'exit 3'" -e "$NOP"
expect_eq "-c: exit 3" 3 "$RC"
run_ltap $WORK/out $WORK/err -c "sh -c 'kill -TERM \$\$'" -e "$NOP"
expect_eq "-c: killed by SIGTERM: 128 + 15" 143 "$RC"
# ... unless the script says otherwise: exit(CODE) wins, a script error is 1
run_ltap $WORK/out $WORK/err -c "sh -c 'exit 3'" -e "$NOP finish(function() exit(5) end)"
expect_eq "-c: exit(5) wins" 5 "$RC"
run_ltap $WORK/out $WORK/err -c "sh -c 'exit 3'" -e "$NOP finish(function() error('boom') end)"
expect_eq "-c: a script error wins" 1 "$RC"
run_ltap $WORK/out $WORK/err -c "sh -c 'exit 3'" -e "$NOP finish(function() exit() end)"
expect_eq "-c: exit() without a code leaves the command's" 3 "$RC"
# ... and a command ltap ended (-d) is no failure of the command
run_ltap $WORK/out $WORK/err -d 100ms -c "sleep 5" -e "$NOP"
expect_eq "-c ended by -d: 0" 0 "$RC"

# numbers that do not fit are refused
run_ltap $WORK/out $WORK/err -e 'exit(256)'
expect_eq "exit(256) refused" 1 "$RC"
expect_grep "exit(256) named" "^ltap: -e:1: exit: bad status 256 \(0 to 255\)$" $WORK/err
run_ltap $WORK/out $WORK/err -e 'exit(255)'
expect_eq "exit(255)" 255 "$RC"
run_ltap $WORK/out $WORK/err -p 4294967297 -e "$NOP"
expect_eq "-p 4294967297 refused" 2 "$RC"
expect_grep "-p named" "^ltap: -p: bad pid '4294967297' \(1 to 2147483647\)$" $WORK/err
run_ltap $WORK/out $WORK/err profile -p 4294967297
expect_grep "script -p named" "bad pid '4294967297'" $WORK/err

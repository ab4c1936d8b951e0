# Commands run as their words, not under a shell, unless they use shell
# syntax (README "Commands"): the arguments arrive verbatim and the only exec
# is the command's own. Every way a command is given: -c, ltap stat --,
# ltap.measure, ltap.options{command=}, bundled scripts.
EXECS='n = {} probe("sched:sched_process_exec", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n, "key") do io.stderr:write("exec ", k, " ", v, "\n") end end)'
execs() { grep '^exec ' $WORK/err | tr '\n' ' ' | sed 's/ $//'; }

# -c: quotes and backslashes split as sh would; x=1 after the first word is a word
run_ltap $WORK/out $WORK/err -c "/bin/echo 'a  b' \"c\\\"d\" e\\ f x=1 '*' '\$HOME'" -e "$EXECS"
expect_eq "-c: words verbatim" 'a  b c"d e f x=1 * $HOME' "$(cat $WORK/out)"
expect_eq "-c: no shell" "exec echo 1" "$(execs)"
# shell syntax: /bin/sh -c
run_ltap $WORK/out $WORK/err -c "/bin/echo a; /bin/echo b" -e "$EXECS"
expect_eq "-c with ';': a shell" "exec echo 2 exec sh 1" "$(execs)"
run_ltap $WORK/out $WORK/err -c "X=1 /bin/echo a" -e "$EXECS"
expect_eq "-c with a leading VAR=: a shell" "exec echo 1 exec sh 1" "$(execs)"
# an unclosed quote is an error naming it
run_ltap $WORK/out $WORK/err -c "/bin/echo 'a" -e "$EXECS"
expect_grep "-c: unclosed quote" "^ltap: -c: bad command '/bin/echo 'a': a ' is not closed$" $WORK/err

# ltap stat -- CMD ARGS: the argument vector as it is, as perf stat
run_ltap $WORK/out $WORK/err stat -e sched:sched_process_exec -- /bin/echo 'a*b' '$HOME' "it's" x=1 '"'
expect_eq "stat --: arguments verbatim" "a*b \$HOME it's x=1 \"" "$(cat $WORK/out)"
expect_grep "stat --: one exec" "^ +1      sched:sched_process_exec$" $WORK/err
p=$(perf stat -x, -e sched:sched_process_exec -- python3 -c x=1 2>&1 >/dev/null | cut -d, -f1)
run_ltap $WORK/out $WORK/err stat -e sched:sched_process_exec -- python3 -c x=1
expect_grep "stat -- python3 -c x=1: as many execs as perf stat ($p)" "^ +$p      sched:sched_process_exec$" $WORK/err

# ltap.measure and ltap.options{command=} take an argument vector
run_ltap $WORK/out $WORK/err -e "$EXECS"' begin(function()
  local r = ltap.measure({"/bin/echo", "a  b", "$HOME"}, {}) ltap.drain() print(r.status) exit() end)'
expect_eq "measure {argv}" 'a  b $HOME
0' "$(cat $WORK/out)"
# system-wide (no -c), so other processes' execs count too: only the
# command's own name is exact here (its shell would have been "sh")
expect_eq "measure {argv}: one exec of echo" "exec echo 1" "$(grep '^exec echo ' $WORK/err)"
run_ltap $WORK/out $WORK/err -e "$EXECS"' ltap.options{command = {"/bin/echo", "|"}}'
expect_eq "options{command = {argv}}" "| exec echo 1" "$(cat $WORK/out) $(execs)"
run_ltap $WORK/out $WORK/err -e "$EXECS"' ltap.options{command = "/bin/echo x=1 \"a b\""}'
expect_eq "options{command = string}" "x=1 a b exec echo 1" "$(cat $WORK/out) $(execs)"
run_ltap $WORK/out $WORK/err -e 'ltap.options{command = {"/bin/echo", 3}}'
expect_grep "argv of a non-string" "ltap.options: argument 2 of the command is a number, not a string" $WORK/err

# bundled scripts taking -c: the same splitting
run_ltap $WORK/out $WORK/err record -e sched:sched_process_exec -c "/bin/echo x=1 'a b'" -o $WORK/r.dat
expect_eq "record -c: words verbatim" "x=1 a b" "$(head -1 $WORK/out)"
run_ltap $WORK/out $WORK/err --input $WORK/r.dat -e "$EXECS"
expect_eq "record -c: no shell" "exec echo 1" "$(execs)"

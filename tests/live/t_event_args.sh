# One rule for names: e.name, e.pid, e.tid, e.comm, e.cpu, e.time are the
# event's own on every event; a format field named like one of them (or
# args, or a method) is e.args.FIELD only; every other field is both e.FIELD
# and e.args.FIELD; e:copy() mirrors e. Checked live where a workload of ours
# triggers such an event, then on every such event of this kernel through a
# text trace made from the formats (a live run cannot trigger them all).

# getpgid(i % 10): the argument (e.args.pid) in 10 buckets, the caller (e.pid) in one
N=1000
cat > $WORK/g.lua <<'LUA'
local args, callers, copies = stats({hist = "linear", min = 0, max = 10, step = 1}), {}, 0
probe("syscalls:sys_enter_getpgid", function(e)
  args:add(e.args.pid)
  callers[e.pid == ltap.target and "target" or e.pid] = (callers[e.pid == ltap.target and "target" or e.pid] or 0) + 1
  local c = e:copy()
  if c.pid == e.pid and c.args.pid == e.args.pid and c.__syscall_nr == e.__syscall_nr and c.args.__syscall_nr == e.__syscall_nr then
    copies = copies + 1
  end
end)
finish(function()
  for _, b in ipairs(args:hist()) do printf("[%d, %d) %d\n", b.lo, b.hi, b.count) end
  for k, v in sorted(callers) do printf("caller %s %d\n", k, v) end
  printf("copies %d\n", copies)
end)
LUA
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop $N" $WORK/g.lua
expect_eq "getpgid histogram over e.args.pid, e.pid the caller" \
  "$(for i in $(seq 0 9); do echo "[$i, $((i + 1))) $((N / 10))"; done; echo "caller target $N"; echo "copies $N")" "$(cat $WORK/out)"

# events of a shell under -c: its fork, a signal it sends, the exec of the child
cat > $WORK/s.lua <<'LUA'
local forked = {}
probe("task:task_newtask", function(e)
  if e.comm == "sh" then forked[e.args.pid] = true end
  printf("newtask by %s: args.comm=%s own=%s\n", e.comm, e.args.comm, tostring(e.args.pid ~= e.pid and e.args.pid ~= e.tid))
end)
probe("signal:signal_generate", "sig == 15", function(e)
  local c = e:copy()
  printf("signal by %s to its child: %s copy=%s\n", e.comm, tostring(forked[e.args.pid] == true and e.args.pid ~= e.pid),
    tostring(c.comm == e.comm and c.args.comm == e.args.comm and c.pid == e.pid and c.args.pid == e.args.pid and c.sig == 15))
end)
probe("sched:sched_process_exec", function(e)
  printf("exec %s: pid=%s args.pid=%s old_pid=%s name=%s\n", e.comm, tostring(e.pid == e.args.pid),
    tostring(e.args.pid == e.old_pid), tostring(e.args.old_pid == e.old_pid), e.name)
end)
LUA
run_ltap $WORK/out $WORK/err --record $WORK/s.dat -c "sleep 5 & kill \$!; wait; exec $PROGS/getpgid_loop 1" $WORK/s.lua
expect_eq "exit" 0 "$RC"
expect_eq "newtask, signal_generate, sched_process_exec by the rule" \
"exec sh: pid=true args.pid=true old_pid=true name=sched:sched_process_exec
newtask by sh: args.comm=sh own=true
signal by sh to its child: true copy=true
exec getpgid_loop: pid=true args.pid=true old_pid=true name=sched:sched_process_exec" "$(grep -v '^exec sleep' $WORK/out)"
run_ltap $WORK/replay $WORK/err --input $WORK/s.dat $WORK/s.lua
expect_eq "the same over the recorded trace.dat" "$(cat $WORK/out)" "$(cat $WORK/replay)"

# e.args under the event's guards; the error names e.args.FIELD
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 1" -e 'local k; probe("syscalls:sys_enter_getpgid", function(e) k = e.args end) finish(function() return k.pid end)'
expect_grep "e.args kept beyond its handler" "attempt to use an event outside its handler" $WORK/err
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 1" -e 'probe("syscalls:sys_enter_getpgid", function(e) e.args.pid = 1 end)'
expect_grep "e.args is read-only" "events are read-only" $WORK/err
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 1" -e 'probe("syscalls:sys_enter_getpgid", function(e) return e.ordr end)'
expect_grep "the fields as the script reads them" "-e:1: syscalls:sys_enter_getpgid has no field 'ordr' \(fields: __syscall_nr, e.args.pid\)$" $WORK/err
run_ltap $WORK/out $WORK/err -c "$PROGS/getpgid_loop 1" -e 'probe("syscalls:sys_enter_getpgid", function(e) return e.args.ordr end)'
expect_grep "e.args lists every field" "-e:1: syscalls:sys_enter_getpgid has no field 'ordr' \(fields: __syscall_nr, pid\)$" $WORK/err
run_ltap $WORK/out $WORK/err list -v irq:irq_handler_entry
expect_eq "ltap list -v marks the shadowed field" "$(printf 'irq:irq_handler_entry\n    int irq\n    __data_loc char[] name  (read as e.args.name)')" "$(cat $WORK/out)"

# every event of this kernel with a field named like a reserved name, as a
# text line of its fields (key=value, or the positional format of
# raw_syscalls:sys_enter), replayed through the local formats; the ftrace
# system (function, funcgraph_entry: the function tracer's, no probe takes
# them) aside
awk -v want=$WORK/want.lua -v text=$WORK/fields.txt '
function flush(  i, line, sep) {
  if (ev == "" || nres == 0 || sys == "ftrace" || seen[ev]++) return
  n++
  tid = 20000 + n; comm = "w" n
  line = sprintf("%16s-%-7d [001] ..... 100.%06d: ", comm, tid, n)
  printf("{event = \"%s:%s\", tid = %d, comm = \"%s\", time = 100%06d000, fields = {", sys, ev, tid, comm, n) > want
  if (sys == "raw_syscalls" && ev == "sys_enter") {
    line = line "sys_enter: NR 39 (7d0, 7d1, 7d2, 7d3, 7d4, 7d5)"
    printf("args = {2000, 2001, 2002, 2003, 2004, 2005}, id = 39") > want
  } else {
    line = line ev ":"; sep = ""
    for (i = 1; i <= nf; i++) {
      if (!reserved[fname[i]] && i != plain) continue
      v = fstr[i] ? "\"s" n "_" i "\"" : 3000 + n * 20 + i
      line = line " " fname[i] "=" (fstr[i] ? "s" n "_" i : v)
      printf("%s%s = %s", sep, fname[i], v) > want; sep = ", "
    }
  }
  printf("}, plain = %s},\n", plain ? "\"" fname[plain] "\"" : "nil") > want
  print line > text
}
BEGIN {
  split("name pid tid comm cpu time args copy stack kstack ustack folded frame", r, " ")
  for (i in r) reserved[r[i]] = 1
  print "return {" > want
}
FNR == 1 { flush(); ev = ""; nf = 0; nres = 0; plain = 0; split(FILENAME, p, "/"); sys = p[length(p) - 2] }
/^name: / { ev = $2 }
/^\tfield:/ && !/common_/ {
  decl = $0; sub(/^\tfield:/, "", decl); sub(/;.*/, "", decl)
  size = $0; sub(/.*size:/, "", size); sub(/;.*/, "", size)
  k = split(decl, w, " "); name = w[k]; arr = name ~ /\[/ || decl ~ /__data_loc/; sub(/\[.*/, "", name)
  nf++; fname[nf] = name
  fstr[nf] = decl ~ /char/ && arr && decl !~ /\*/
  if (reserved[name]) nres++
  else if (!plain && !arr && size >= 4 && decl !~ /\*/) plain = nf
}
END { flush(); print "}" > want; print n }' /sys/kernel/tracing/events/*/*/format > $WORK/count
cat > $WORK/every.lua <<'LUA'
local want, by = dofile(arg[1]), {}
for _, w in ipairs(want) do by[w.event] = w end
local events, fields, wrong = 0, 0, {}
local function check(ok, w, what) fields = fields + 1 if not ok then wrong[#wrong + 1] = w.event .. ": " .. what end end
local function same(a, b)
  if type(b) ~= "table" then return a == b end
  for i, v in ipairs(b) do if a[i] ~= v then return false end end
  return true
end
local common = {name = true, pid = true, tid = true, comm = true, cpu = true, time = true}
probe("*:*", function(e)
  local w = by[e.name]
  if not w then wrong[#wrong + 1] = "unexpected " .. e.name return end
  events = events + 1
  local c = e:copy()
  local own = {name = w.event, pid = w.tid, tid = w.tid, comm = w.comm, cpu = 1, time = w.time}
  for k, v in pairs(own) do check(e[k] == v and c[k] == v, w, "e." .. k) end
  for f, v in pairs(w.fields) do
    check(same(e.args[f], v), w, "e.args." .. f .. " = " .. tostring(e.args[f]))
    check(same(c.args[f], v), w, "e:copy().args." .. f)
    if common[f] then
      check(e[f] == own[f] and c[f] == own[f], w, "e." .. f .. " is the event's")
    elseif f == "args" then
      check(rawequal(e.args, e.args) and type(e.args) == "table" and type(c.args) == "table", w, "e.args is the proxy")
    elseif f ~= w.plain and w.event ~= "raw_syscalls:sys_enter" then
      check(type(e[f]) == "function" and c[f] == nil, w, "e." .. f .. " is the method")
    end
  end
  if w.plain then
    check(e[w.plain] == w.fields[w.plain] and c[w.plain] == w.fields[w.plain], w, "e." .. w.plain)
  end
end)
finish(function()
  printf("%d events, %d checks, %d wrong\n", events, fields, #wrong)
  for i = 1, math.min(#wrong, 10) do print(wrong[i]) end
end)
LUA
count=$(cat $WORK/count)
[ "$count" -ge 100 ] || fail "only $count events with a reserved field name found in the formats"
for ev in syscalls:sys_enter_getpgid sched:sched_process_exec sched:sched_wakeup irq:irq_handler_entry \
          task:task_newtask raw_syscalls:sys_enter tcp:tcp_rcvbuf_grow; do
  [ ! -d $T/events/${ev/://} ] || grep -q "event = \"$ev\"" $WORK/want.lua || fail "$ev is not among the generated events"
done
run_ltap $WORK/out $WORK/err --input $WORK/fields.txt $WORK/every.lua $WORK/want.lua
expect_eq "every event with a field named like a reserved name ($count)" 0 "$RC"
expect_grep "all of them, by the rule" "^$count events, [0-9]+ checks, 0 wrong$" $WORK/out

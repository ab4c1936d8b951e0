-- ltap-args: --input ../data/getpgid-text.txt
-- Filters over a text trace (tests/data/getpgid-text.txt: getpgid(i % 10)
-- 100 times, and two execs) apply in user space as the kernel applies them,
-- whatever other probes share the event: numbers, signs, strings of the
-- format (filename), COMM (the line's task), globs and the {filter=} form.
local n = {}
local function count(k) n[k] = 0 return function(e) n[k] = n[k] + 1 end end
probe("syscalls:sys_enter_getpgid", count("all"))
probe("syscalls:sys_enter_getpgid", "pid == 7", count("pid == 7"))
probe("syscalls:sys_enter_getpgid", {filter = "pid >= 8"}, count("pid >= 8"))
probe("syscalls:sys_enter_getp*", "pid < 3 || pid == 9", count("glob: pid < 3 || pid == 9"))
probe("syscalls:sys_enter_getpgid", 'COMM ~ "getpgid*" && !(pid & 1)', count("COMM ~ getpgid* && even"))
probe("syscalls:sys_enter_getpgid", 'COMM ~ "*_loop"', count("COMM ~ *_loop (the kernel's char[16] end)"))
probe("sched:sched_process_exec", count("exec"))
probe("sched:sched_process_exec", 'filename ~ "*getpgid_loop"', count("exec filename ~ *getpgid_loop"))
probe("sched:sched_process_exec", 'COMM == "getppid_loop"', count("exec COMM == getppid_loop"))
probe("sched:sched_process_exec", "pid > 0 && old_pid != 0", count("exec pid > 0 && old_pid != 0"))
finish(function() for k, v in sorted(n, "key") do printf("%-45s %d\n", k, v) end end)

-- ltap-args: --input ../data/formats.txt
-- A text trace read through this machine's formats: events by their full
-- names, fields typed as live (flags tables, signed values, strings),
-- filters applied in user space, the syscall tracer's own lines, glob
-- probes, and key=value fields where no format has them.
probe("syscalls:sys_enter_openat", function(e)
  printf("%s dfd=%d flags=0x%x mode=%d nr=%s\n", e.name, e.dfd, e.flags, e.mode, tostring(e.__syscall_nr))
end)
probe("syscalls:sys_exit_openat", function(e) printf("%s ret=%d: %s\n", e.name, e.ret, tostring(e)) end)
probe("sys_exit_getppid", function(e) printf("%s ret=%d\n", e.name, e.ret) end)
probe("kmem:mm_page_alloc", "order > 0", function(e)
  printf("filtered %s order=%d pfn=0x%x gfp=0x%x %s\n", e.comm, e.order, e.pfn, e.gfp_flags, math.type(e.gfp_flags))
end)
probe("kmem:mm_page_alloc", "gfp_flags & 0x4000000", function(e) printf("flag bit set at pfn 0x%x\n", e.pfn) end)
probe("kmem:mm_page_free_batched", function(e) printf("cold=%d pfn=0x%x\n", e.cold, e.pfn) end)
probe("sched:sched_process_exec", function(e) printf("exec %s pid=%d comm=%s\n", e.filename, e.pid, e.comm) end)
probe("sched:sched_switch", "prev_state == 1", function(e)
  local c = e:copy()
  printf("switch %s -> %s state=%d prio=%d\n", c.prev_comm, c.next_comm, c.prev_state, c.next_prio)
end)
local per = {}
probe("*:*", function(e) per[e.name] = (per[e.name] or 0) + 1 end)
probe("some_event_from_elsewhere", function(e)
  printf("elsewhere value=%d name=%s args.name=%s copy.args.name=%s\n", e.value, e:copy().name, e.args.name, e:copy().args.name)
end)
probe("ftrace:print", function(e) printf("marker '%s' from %s\n", e.buf, e.comm) end)
finish(function()
  for name, n in sorted(per, "key") do printf("%-32s %d\n", name, n) end
end)

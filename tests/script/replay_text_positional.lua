-- ltap-args: --input ../data/raw-syscalls.txt
-- Print formats without key=value ("NR %ld (%lx, %lx, ...)", "NR %ld = %ld"):
-- the line is matched against the format and each conversion gives its
-- field, array elements included, so raw_syscalls (what syscount probes)
-- reads the same over text as live.
local calls, getppid = stats(), {}
probe("raw_syscalls:sys_enter", function(e) calls:inc(e.comm, ltap.syscall_name(e.id) or e.id) end)
probe("raw_syscalls:sys_enter", "id == 110", function(e)
  getppid[#getppid + 1] = string.format("args 0x%x 0x%x 0x%x", e.args.args[1], e.args.args[2], e.args.args[4])
end)
probe("raw_syscalls:sys_exit", "id == 110 && ret > 0", function(e) getppid[#getppid + 1] = "ret " .. e.ret end)
finish(function()
  report(calls, {keys = {"comm", "syscall"}, fields = {"count"}, top = 8})
  print(table.concat(getppid, "\n"))
end)

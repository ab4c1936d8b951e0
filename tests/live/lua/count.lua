-- count.lua: getppid() calls by process name, "comm N" lines (largest first)
local n = {}
probe("syscalls:sys_enter_getppid", function(e) n[e.comm] = (n[e.comm] or 0) + 1 end)
finish(function() for k, v in sorted(n) do printf("%s %d\n", k, v) end end)

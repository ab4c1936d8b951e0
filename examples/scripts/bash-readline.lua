-- name: bash-readline
-- summary: the command lines typed in every bash, as they are entered
-- usage: ltap bash-readline.lua [-p PID | -d DURATION]
-- example:
--   PID     LINE
--   4120    ls -l /tmp
--   4120    make -j2
--
-- A uretprobe on bash's readline(): the line it returns, read from the
-- process's memory by the kernel at the return (ret:string).

begin(function() printf("%-7s %s\n", "PID", "LINE") end)
probe("ur:/usr/bin/bash:readline ret:string", function(e)
  printf("%-7d %s\n", e.pid, e.ret)
end)

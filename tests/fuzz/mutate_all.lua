-- mutate_all.lua: reads every event of a trace.dat every way a script can:
-- the common fields, every format field (e:copy()), the kernel's rendering
-- (tostring, libtraceevent) and a user-space filter. For damaged files
-- (t_mutate_tracedat.sh): whatever the file holds, ltap must end with a
-- one-line error or this script's last line.
local n, filtered, bytes = 0, 0, 0
probe("*:*", function(e)
  n = n + 1
  for k, v in pairs(e:copy()) do bytes = bytes + #tostring(k) + #tostring(v) end
  bytes = bytes + #tostring(e)
end)
probe("*:*", "common_pid >= 0", function() filtered = filtered + 1 end)
finish(function() printf("events %d, filtered %d\n", n, filtered) end)

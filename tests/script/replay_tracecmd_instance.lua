-- ltap-args: --input ../data/tracecmd-instance.dat
-- trace-cmd record -B: the events are in an instance's buffer, not the
-- top-level one; every buffer of the file is replayed, merged by time.
local n, cpus = {}, {}
probe("*:*", function(e)
  n[e.comm .. " " .. e.name] = (n[e.comm .. " " .. e.name] or 0) + 1
  cpus[e.cpu] = true
end)
finish(function()
  for k, v in sorted(n, "key") do printf("%-40s %d\n", k, v) end
  printf("cpus: %s %s\n", tostring(cpus[0]), tostring(cpus[1]))
end)

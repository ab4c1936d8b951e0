-- ltap-args: --input ../data/getppid-pages.dat
-- e.time (bindings/event.c): stored in the event table only once a
-- handler has read it, through __index before that; the same value either
-- way, each event its own, and e:copy() agrees. Handlers that never read it
-- leave no time in the table.
local n, stored_before, stored_after, sum, bad, last = 0, 0, 0, 0, 0, nil
local reads = 0
probe("syscalls:sys_enter_getppid", function(e)
  n = n + 1
  if n <= 100 then                    -- not read yet: never stored
    if rawget(e, "time") ~= nil then stored_before = stored_before + 1 end
    return
  end
  if n % 2 == 0 then return end       -- read on every other event from here
  if rawget(e, "time") ~= nil then stored_after = stored_after + 1 end
  local t = e.time
  reads = reads + 1
  if t ~= e:copy().time or t ~= e.time then bad = bad + 1 end
  if last and t < last then bad = bad + 1 end
  last = t
  sum = sum + t % 1000003
end)
finish(function()
  printf("events %d, read %d: stored before the first read %d, after it %d (all but the first), wrong %d, sum %d\n",
    n, reads, stored_before, stored_after, bad, sum)
end)

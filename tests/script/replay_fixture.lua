-- ltap-args: --input ../data/getppid-pages.dat
-- A saved trace (made by ltap --record, tests/data/README.md): the same
-- probes, filters, timers and hooks as live, on the trace's own clock.
local calls, pages = stats(), stats{hist = "log2"}
local ticks, execs = 0, {}
probe("syscalls:sys_enter_getppid", function(e) calls:inc(e.comm) end)
probe("kmem:mm_page_alloc", "order == 0", function(e) pages:add(e.comm, 4096 << e.order) end)
probe("sched:sched_process_exec", function(e)
  execs[#execs + 1] = string.format("%8.3f ms exec %s", (e.time - ltap.start_time()) / 1e6, e.comm)
end)
every("1ms", function() ticks = ticks + 1 end)
finish(function()
  printf("live=%s\n", tostring(ltap.live))
  report(calls, {keys = {"comm"}, fields = {"count"}})
  printf("touch_pages order-0 allocations: %d\n", pages:count("touch_pages"))
  for _, x in ipairs(execs) do print(x) end
  printf("1 ms ticks: %d, run: %.3f ms, lost: %d\n", ticks, (ltap.now() - ltap.start_time()) / 1e6, (ltap.lost()))
end)

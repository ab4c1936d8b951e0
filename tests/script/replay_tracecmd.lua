-- ltap-args: --input ../data/tracecmd-getppid.dat
-- A trace.dat made by trace-cmd itself (version 7, zstd-compressed sections;
-- tests/data/README.md): per-CPU streams merged by time, names and systems
-- from the file's formats, tasks from its saved cmdlines, fields and the
-- print format through libtraceevent. replay_tracecmd_v6.lua runs this
-- script over the same trace converted to version 6.
local calls, pages, cpus = stats(), stats(), stats()
local names, pids, firsts = {}, {}, {}
local orders, backwards, last = 0, 0, nil
local function common(e)
  names[e.name] = (names[e.name] or 0) + 1
  pids[e.comm .. " " .. e.pid .. "/" .. e.tid] = true
  cpus:inc(e.cpu)
  if last and e.time < last then backwards = backwards + 1 end
  last = e.time
  if not firsts[e.name] then
    firsts[e.name] = string.format("%s cpu %d at +%d ns: %s", e.comm, e.cpu, e.time - ltap.start_time(), tostring(e))
  end
end
probe("syscalls:sys_enter_getppid", function(e) common(e); calls:inc(e.comm) end)
probe("kmem:mm_page_alloc", function(e)
  common(e)
  pages:inc(e.comm)
  orders = orders + e.order
  if e.pfn == 0x104c41 then printf("pfn 0x%x: order %d, migratetype %d, gfp_flags 0x%x\n", e.pfn, e.order, e.migratetype, e.gfp_flags) end
end)
finish(function()
  printf("live=%s\n", tostring(ltap.live))
  report(calls, {keys = {"comm"}, fields = {"count"}})
  report(pages, {keys = {"comm"}, fields = {"count"}})
  report(cpus, {keys = {"cpu"}, fields = {"count"}})
  for name, n in sorted(names, "key") do printf("%s %d\n", name, n) end
  for task in sorted(pids, "key") do print(task) end
  for name, line in sorted(firsts, "key") do printf("first %s: %s\n", name, line) end
  printf("sum of orders: %d, out of order: %d\n", orders, backwards)
  printf("run: %d ns, last event at +%d ns, lost: %d\n", ltap.now() - ltap.start_time(), last - ltap.start_time(), (ltap.lost()))
end)

-- ltap-args: --input ../data/variants.txt
-- trace / trace_pipe text in its variants (irq-flags column or not, a tgid
-- column, comms with spaces, slashes and colons). The fields are typed by
-- this machine's formats: gfp_flags=GFP_KERNEL is 0xcc0, as live.
local pages = stats()
probe("kmem:mm_page_alloc", function(e)
  pages:add(e.comm, 1 << e.order)
  printf("%-14s pid=%-4d tid=%-4d cpu=%d t=%.6f order=%d gfp=0x%x\n", e.comm, e.pid, e.tid, e.cpu, e.time / 1e9, e.order, e.gfp_flags)
end)
probe("sched:sched_switch", function(e) printf("switch to %s (%d): %s\n", e.next_comm, e.next_pid, tostring(e)) end)
every("1s", function() printf("tick at +%.1f s\n", (ltap.now() - ltap.start_time()) / 1e9) end)
finish(function()
  report(pages, {keys = {"comm"}, fields = {"count", "sum"}})
end)

-- name: report
-- summary: where an event happens: overhead by command, shared object and symbol (perf report)
-- usage: ltap report EVENT [FILTER] [-p PID | -c CMD | -a] [-d DURATION] [--top N] [--folded FILE]
-- example:
--   # Samples: 133
--   #
--   # Overhead  Command      Shared Object      Symbol
--   # ........  ...........  .................  ......................
--   #
--     100.00%  touch_pages  [kernel.kallsyms]  [k] __alloc_frozen_pages_noprof
--
-- `perf record -e EVENT -g` + `perf report --no-children --sort comm,dso,symbol`
-- in one run: EVENT with stacks, counted by the frame where it happened.
-- EVENT "profile" (or "profile:99hz") samples cpu-clock instead.
local getopt = require("ltap.getopt")
local folded = require("ltap.folded")
local overhead = require("ltap.overhead")

local opts, pos = getopt{
  {"--top", "integer", "the N first rows of the table", default = 50, min = 1},
  {"--folded", "string", "also write the stacks in the folded format to FILE", arg = "FILE"},
  targets = true,
}
if not pos[1] then getopt.error("an EVENT is needed") end
if #pos > 2 then getopt.error("unexpected argument '" .. pos[3] .. "'") end

local stacks, acc = {}, overhead.new()
local function count(e)
  overhead.add(acc, e)
  if opts.folded then folded.add(stacks, e) end
end
local hz = pos[1]:match("^profile:?(%d*)")
if hz then
  profile(tonumber(hz) or 99, count)
else
  probe(pos[1], { stack = true, filter = pos[2] }, count)
end

finish(function()
  overhead.print(acc, opts.top)
  if opts.folded then
    local n, err = folded.write(stacks, opts.folded)
    if not n then error("--folded: " .. err, 0) end
  end
end)

-- name: profile
-- summary: CPU profile with call chains: top symbols, folded stacks, flame graph
-- usage: ltap profile [-F HZ] [-p PID | -c CMD | -a] [-d DURATION] [--folded FILE] [--svg FILE] [--save FILE] [--top N]
-- example:
--   # Samples: 1998
--   #
--   # Overhead  Command  Shared Object      Symbol
--   # ........  .......  .................  ......................
--   #
--      96.10%  hot      hot                [.] hot_spin
--       1.05%  swapper  [kernel.kallsyms]  [k] pv_native_safe_halt
--
-- Samples cpu-clock at HZ (default 99) on every CPU, system-wide unless -p or
-- -c, until -d, the command's end or ^C. Prints the perf-report-style table
-- (by command, shared object, symbol); --folded writes the stacks in the
-- folded format; --svg writes a flame graph (ltap.flamegraph); --save keeps
-- every sample with its call chain as `perf script` prints it (addresses,
-- symbol+offset, modules): ltap annotate -i and ltap flamegraph read it.
local getopt = require("ltap.getopt")
local folded = require("ltap.folded")
local overhead = require("ltap.overhead")

local opts, pos = getopt{
  {"-F, --freq", "integer", "samples per second per CPU", default = 99, min = 1, max = 100000, arg = "HZ"},
  {"--folded", "string", "write the stacks in the folded format to FILE", arg = "FILE"},
  {"--svg", "string", "write a flame graph to FILE", arg = "FILE"},
  {"--save", "string", "write every sample with its call chain to FILE as perf script text", arg = "FILE"},
  {"--top", "integer", "the N first rows of the table", default = 25, min = 1},
  targets = true,
}
if #pos > 0 then getopt.error("unexpected argument '" .. pos[1] .. "'") end
local hz, top = opts.freq, opts.top
local flame
if opts.svg then
  local ok, mod = pcall(require, "ltap.flamegraph")
  if not ok then ltap.usage_error("--svg: the flame graph writer (ltap.flamegraph) is not available in this build") end
  flame = mod
end

local saved, nsaved, period = nil, 0, math.floor(1e9 / hz + 0.5)
if opts.save then
  local err
  saved, err = io.open(opts.save, "w")
  if not saved then error("--save: " .. err, 0) end
end

-- counted per distinct stack in C, named once at the end (ltap.stackcount);
-- without --save, by the runtime alone: no Lua call per sample
local counts = ltap.stackcount()
if saved then
  profile(hz, function(e)
    counts:add(e)
    saved:write(e:script(period))
    nsaved = nsaved + 1
  end)
else
  profile(hz, counts)
end

finish(function()
  local acc = overhead.new()
  overhead.add_counts(acc, counts)
  overhead.print(acc, top)
  if saved then
    local ok, err = saved:close()
    if not ok then error("--save: " .. err, 0) end
    io.stderr:write(string.format("ltap: %d samples saved to %s\n", nsaved, opts.save))
  end
  -- sorted once, for the folded file and the flame graph (a sorted stack
  -- list is drawn as it is)
  local keys, cnt = ltap.flame_sort(counts:folded())
  local stacks = {stacks = keys, counts = cnt}
  if opts.folded then
    local n, err = folded.write(stacks, opts.folded)
    if not n then error("--folded: " .. err, 0) end
    io.stderr:write(string.format("ltap: %d stacks written to %s\n", n, opts.folded))
  end
  if flame then
    local n, err = flame.write(stacks, opts.svg, { title = "ltap profile " .. hz .. " Hz" })
    if not n then error("--svg: " .. err, 0) end
    io.stderr:write(string.format("ltap: flame graph written to %s\n", opts.svg))
  end
end)

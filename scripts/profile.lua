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
local cmdline = require("ltap.cmdline")
local folded = require("ltap.folded")
local overhead = require("ltap.overhead")

local usage = "ltap profile [-F HZ] [-p PID | -c CMD | -a] [-d DURATION] [--folded FILE] [--svg FILE] [--save FILE] [--top N]"
local opts, pos = cmdline.parse(arg, { F = "value", p = "value", c = "value", a = "flag", d = "value",
  folded = "value", svg = "value", save = "value", top = "value" }, usage)
if #pos > 0 then error("unexpected argument '" .. pos[1] .. "'\nusage: " .. usage, 0) end
cmdline.targets(opts, usage)
local hz = tonumber(opts.F or 99)
local top = tonumber(opts.top or 25)
local flame
if opts.svg then
  local ok, mod = pcall(require, "ltap.flamegraph")
  if not ok then error("--svg: the flame graph writer (ltap.flamegraph) is not available in this build", 0) end
  flame = mod
end

local saved, nsaved, period = nil, 0, (hz and hz > 0) and math.floor(1e9 / hz + 0.5) or 1
if opts.save then
  local err
  saved, err = io.open(opts.save, "w")
  if not saved then error("--save: " .. err, 0) end
end

local stacks, acc = {}, overhead.new()
profile(hz, function(e)
  folded.add(stacks, e)
  overhead.add(acc, e)
  if saved then
    saved:write(e:script(period))
    nsaved = nsaved + 1
  end
end)

finish(function()
  overhead.print(acc, top)
  if saved then
    local ok, err = saved:close()
    if not ok then error("--save: " .. err, 0) end
    io.stderr:write(string.format("ltap: %d samples saved to %s\n", nsaved, opts.save))
  end
  if opts.folded then
    local n, err = folded.write(stacks, opts.folded)
    if not n then error("--folded: " .. err, 0) end
    io.stderr:write(string.format("ltap: %d stacks written to %s\n", n, opts.folded))
  end
  if flame then
    flame.write(stacks, opts.svg, { title = "ltap profile " .. hz .. " Hz" })
    io.stderr:write(string.format("ltap: flame graph written to %s\n", opts.svg))
  end
end)

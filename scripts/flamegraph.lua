-- name: flamegraph
-- summary: an interactive SVG flame graph (or a differential one) from folded stacks
-- usage: ltap flamegraph [--title T] IN.folded OUT.svg
--        ltap flamegraph --diff [--title T] BEFORE.folded AFTER.folded OUT.svg
-- example:
--   ltap profile -a -d 10s --folded cpu.folded && ltap flamegraph cpu.folded cpu.svg
--
-- Reads the folded format (one "frame;frame;... count" line per stack) that
-- ltap profile, stackcollapse-perf.pl, speedscope and inferno write. With
-- --diff the frames are sized by AFTER and coloured by how their share of
-- all samples changed: red grew, blue shrank. Needs no kernel access.

local getopt = require("ltap.getopt")
local fg = require("ltap.flamegraph")
local usage = "usage: flamegraph [--diff] [--title T] IN.folded... OUT.svg"
local o, files = getopt(arg, {diff = "flag", title = "value"}, usage)
local need = o.diff and 3 or 2
if #files ~= need then error("flamegraph: " .. need .. " files are needed (" .. usage .. ")", 0) end

begin(function()
  local n
  if o.diff then
    n = fg.diff(fg.read_folded(files[1]), fg.read_folded(files[2]), files[3], {title = o.title or "Differential Flame Graph"})
  else
    n = fg.write(fg.read_folded(files[1]), files[2], {title = o.title or "Flame Graph"})
  end
  io.stderr:write(string.format("flamegraph: %d frames written to %s\n", n, files[need]))
  exit(0)
end)

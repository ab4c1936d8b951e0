-- name: flamegraph
-- summary: an interactive SVG flame graph (icicle, flame chart, differential) from folded stacks or perf script
-- usage: ltap flamegraph [OPTIONS] [IN [OUT.svg]]
--        ltap flamegraph --diff [OPTIONS] BEFORE AFTER [OUT.svg]
-- example:
--   perf record -g -a sleep 10 && perf script | ltap flamegraph --all > cpu.svg
--   ltap profile -a -d 10s --folded cpu.folded && ltap flamegraph cpu.folded cpu.svg
--
-- IN is folded stacks ("frame;frame;... count": ltap profile --folded,
-- stackcollapse-*.pl, inferno; fractional counts and blank frames as
-- flamegraph.pl reads them; difffolded.pl's "stack before after" lines draw a
-- differential graph) or the text of `perf script` (recognized by its frame
-- lines, or --from perf), folded as stackcollapse-perf.pl folds it. IN "-"
-- or none: standard input; OUT "-" or none: standard output. --folded FILE
-- writes the folded stacks (stackcollapse's lines), and alone writes no SVG.
-- Needs no kernel access.
--
-- Graph options (flamegraph.pl's): --title T, --subtitle T, --width PX,
-- --height PX (a frame's), --minwidth PX|N%, --countname NAME, --nametype
-- LABEL, --colors PALETTE (hot, mem, io, wakeup, chain, java, js, perl, red,
-- green, blue, aqua, yellow, purple, orange), --bgcolors yellow|blue|green|
-- grey|#rrggbb, --hash (colours by a hash of the name's first characters),
-- --reverse (stacks reversed: merged at the leaf), --inverted (icicle),
-- --flamechart (input order, neighbours merged only), --negate (diff hues
-- swapped), --fonttype, --fontsize, --fontwidth. ltap's: --maxheight PX
-- (800; 0 for no limit), --diff-by self|inclusive, --no-normalize.
-- perf script options (stackcollapse-perf.pl's): --pid, --tid, --addrs,
-- --kernel, --jit, --all, --srcline, --event-filter EVENT.
--
-- --diff: frames sized by AFTER, coloured by the change of their own samples
-- (BEFORE scaled to AFTER's total, as difffolded.pl -n), red grew, blue
-- shrank, the largest change saturated; --diff-by inclusive colours by the
-- change of each frame's share of all samples, callees included.

local getopt = require("ltap.getopt")
local fg = require("ltap.flamegraph")
local folded = require("ltap.folded")
local perfscript = require("ltap.perfscript")

local usage = "usage: flamegraph [--diff] [OPTIONS] [IN [OUT.svg]] (the options: README, Flame graphs)"
local spec = {diff = "flag", title = "value", subtitle = "value", width = "number", height = "number",
  minwidth = "value", countname = "value", nametype = "value", colors = "value", bgcolors = "value",
  hash = "flag", reverse = "flag", inverted = "flag", flamechart = "flag", negate = "flag",
  fonttype = "value", fontsize = "number", fontwidth = "number", maxheight = "number",
  ["diff-by"] = "value", ["no-normalize"] = "flag", folded = "value", from = "value",
  pid = "flag", tid = "flag", addrs = "flag", kernel = "flag", jit = "flag", all = "flag", srcline = "flag",
  ["event-filter"] = "value", inline = "flag", context = "flag"}
local o, files = getopt(arg, spec, usage)
local function usage_error(msg) error("flamegraph: " .. msg .. " (" .. usage .. ")", 0) end
if o.inline or o.context then
  usage_error("--inline is not offered: it runs addr2line on the modules the input names (ltap runs no program on files you did not name)")
end
if o.from and o.from ~= "perf" and o.from ~= "folded" then usage_error("--from is perf or folded, not '" .. o.from .. "'") end
local ins = o.diff and 2 or 1
if #files > ins + 1 or (o.diff and #files < 2) then usage_error((o.diff and "BEFORE AFTER [OUT.svg]" or "[IN [OUT.svg]]") .. " expected") end
if o.diff and o.folded then usage_error("--folded writes one profile's stacks, not a --diff") end
-- the SVG's path; none when only --folded output was asked for
local out = files[ins + 1]
if not out and not o.folded then out = "-" end
local graph = {title = o.title, subtitle = o.subtitle, width = o.width, height = o.height, minwidth = o.minwidth,
  countname = o.countname, nametype = o.nametype, colors = o.colors, bgcolors = o.bgcolors, hash = o.hash,
  reverse = o.reverse, inverted = o.inverted, flamechart = o.flamechart, negate = o.negate, fonttype = o.fonttype,
  fontsize = o.fontsize, fontwidth = o.fontwidth, maxheight = o.maxheight, diff = o["diff-by"],
  normalize = not o["no-normalize"]}
if o.diff and not o.title then graph.title = "Differential Flame Graph" end
local perf_opts = {pid = o.pid, tid = o.tid, addrs = o.addrs, kernel = o.kernel, jit = o.jit, all = o.all,
  srcline = o.srcline, event_filter = o["event-filter"], merge = not o.flamechart}
-- a bad option value fails now, before any input is read
local ok, err = pcall(fg.svg, {}, graph)
if not ok then error((tostring(err):gsub("^.-flamegraph: ", "flamegraph: ")), 0) end

local function warn(fmt, ...) io.stderr:write("flamegraph: ", string.format(fmt, ...), "\n") end

-- The input at path for the readers ({text = what was read, file = the
-- rest}), and what it is: "perf" when a line among the first ones is one
-- only perf script prints, else "folded".
local function open_input(path)
  local f, why = io.stdin, nil
  if path ~= "-" then f, why = io.open(path) end
  if not f then return nil, why end
  if o.from then return {text = "", file = f}, o.from end
  local seen, kind = {}, "folded"
  while #seen < 64 do
    local l = f:read("L")
    if not l then break end
    seen[#seen + 1] = l
    if perfscript.looks_like((l:gsub("\n$", ""))) then kind = "perf"; break end
  end
  return {text = table.concat(seen), file = f}, kind
end

-- a stack list of path, or nil after a message
local function read(path)
  local input, kind = open_input(path)
  if not input then warn("cannot read %s: %s", path, kind); return nil end
  local name = path == "-" and "standard input" or path
  local list, info
  if kind == "perf" then
    list, info = perfscript.read(input, perf_opts)
    if info.unrecognized > 0 then
      warn("%d lines of %s are not perf script samples (first: line %d)", info.unrecognized, name, info.first_unrecognized)
    end
    if info.left_out then
      warn("only %s samples of %s are drawn (it has %s ones too): --event-filter chooses", info.event, name, info.left_out)
    end
  else
    list = folded.read(input)
    if list.ignored > 0 then
      warn("%d lines of %s are not 'stack count' (first: line %d)", list.ignored, name, list.first_bad)
    end
  end
  if input.file ~= io.stdin then input.file:close() end
  local total = 0
  for _, n in ipairs(list.counts) do total = total + n end
  if total == 0 then warn("no stack counts in %s", name); return nil end
  return list
end

begin(function()
  local n
  if o.diff then
    local before, after = read(files[1]), nil
    after = before and read(files[2])
    if not after then exit(1); return end
    n = fg.diff(before, after, out, graph)
  else
    local list = read(files[1] or "-")
    if not list then exit(1); return end
    if o.folded then
      local lines, why = folded.write((folded.merge(list)), o.folded)
      if not lines then warn("cannot write %s: %s", o.folded, why); exit(1); return end
      if o.folded ~= "-" then io.stderr:write(string.format("flamegraph: %d stacks written to %s\n", lines, o.folded)) end
    end
    if out then n = fg.write(list, out, graph) end
  end
  if out and out ~= "-" then io.stderr:write(string.format("flamegraph: %d frames written to %s\n", n, out)) end
  exit(0)
end)

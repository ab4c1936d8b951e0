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
-- --diff: frames sized by AFTER, coloured by the change of their own samples
-- (BEFORE scaled to AFTER's total, as difffolded.pl -n), red grew, blue
-- shrank, the largest change saturated; --diff-by inclusive colours by the
-- change of each frame's share of all samples, callees included.

local getopt = require("ltap.getopt")
local fg = require("ltap.flamegraph")
local folded = require("ltap.folded")
local perfscript = require("ltap.perfscript")

local o, files = getopt{
  {"--diff", "flag", "a differential graph of BEFORE and AFTER"},
  {"--folded", "string", "write the folded stacks to FILE (alone: no SVG)", arg = "FILE"},
  {"--from", "string", "what IN is (default: perf script when a line only it prints is seen)",
    choices = {"perf", "folded"}},
  -- flamegraph.pl's
  {"--title", "string", "the graph's title", arg = "TEXT"},
  {"--subtitle", "string", "a second line under the title", arg = "TEXT"},
  {"--width", "number", "the graph's width in pixels (default 1200)", arg = "PX"},
  {"--height", "number", "a frame's height in pixels (default 16)", arg = "PX"},
  {"--minwidth", "string", "leave out frames narrower than PX pixels, or N% of all samples (default 0.1)",
    arg = "PX|N%"},
  {"--countname", "string", "what the counts are (default samples)", arg = "NAME"},
  {"--nametype", "string", "the label of a frame's name (default Function:)", arg = "LABEL"},
  {"--colors", "string", "the palette: hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, "
    .. "yellow, purple, orange (default hot)", arg = "PALETTE"},
  {"--bgcolors", "string", "the background: yellow, blue, green, grey or #rrggbb", arg = "COLOR"},
  {"--hash", "flag", "colours by a hash of the name's first characters"},
  {"--reverse", "flag", "stacks reversed: merged at the leaf"},
  {"--inverted", "flag", "an icicle graph (roots at the top)"},
  {"--flamechart", "flag", "input order, neighbours merged only (a flame chart)"},
  {"--negate", "flag", "--diff's hues swapped"},
  {"--fonttype", "string", "the font (default Verdana)", arg = "FONT"},
  {"--fontsize", "number", "the font size (default 12)", arg = "N"},
  {"--fontwidth", "number", "the font's average width per size (default 0.59)", arg = "N"},
  -- ltap's
  {"--maxheight", "number", "the graph's height in pixels at most; 0: no limit (default 800)", arg = "PX"},
  {"--diff-by", "string", "--diff colours by the change of each frame's own samples, or of its share "
    .. "with callees (default self)", choices = {"self", "inclusive"}},
  {"--no-normalize", "flag", "--diff: BEFORE not scaled to AFTER's total"},
  -- stackcollapse-perf.pl's, for perf script input
  {"--pid", "flag", "perf script: the process id in the process frame"},
  {"--tid", "flag", "perf script: the thread id in the process frame"},
  {"--addrs", "flag", "perf script: the address of unknown symbols"},
  {"--kernel", "flag", "perf script: kernel frames annotated _[k]"},
  {"--jit", "flag", "perf script: JIT frames annotated _[j]"},
  {"--all", "flag", "perf script: both --kernel and --jit"},
  {"--srcline", "flag", "perf script: source lines where perf printed them"},
  {"--event-filter", "string", "perf script: only the samples of EVENT (default: the first event seen)",
    arg = "EVENT"},
  {"--inline", "flag", "not offered: it runs addr2line on the modules the input names"},
  {"--context", "flag", "not offered (as --inline)"},
}
if o.inline or o.context then
  ltap.usage_error("--inline is not offered: it runs addr2line on the modules the input names (ltap runs no program on files you did not name)")
end
local ins = o.diff and 2 or 1
if #files > ins + 1 or (o.diff and #files < 2) then getopt.error((o.diff and "BEFORE AFTER [OUT.svg]" or "[IN [OUT.svg]]") .. " expected") end
if o.diff and o.folded then getopt.error("--folded writes one profile's stacks, not a --diff") end
-- the SVG's path; none when only --folded output was asked for
local out = files[ins + 1]
if not out and not o.folded then out = "-" end
local graph = {title = o.title, subtitle = o.subtitle, width = o.width, height = o.height, minwidth = o.minwidth,
  countname = o.countname, nametype = o.nametype, colors = o.colors, bgcolors = o.bgcolors, hash = o.hash,
  reverse = o.reverse, inverted = o.inverted, flamechart = o.flamechart, negate = o.negate, fonttype = o.fonttype,
  fontsize = o.fontsize, fontwidth = o.fontwidth, maxheight = o.maxheight, diff = o.diff_by,
  normalize = not o.no_normalize}
if o.diff and not o.title then graph.title = "Differential Flame Graph" end
local perf_opts = {pid = o.pid, tid = o.tid, addrs = o.addrs, kernel = o.kernel, jit = o.jit, all = o.all,
  srcline = o.srcline, event_filter = o.event_filter, merge = not o.flamechart}
-- a bad option value fails now, before any input is read
local ok, err = pcall(fg.svg, {}, graph)
if not ok then ltap.usage_error((tostring(err):gsub("^.-flamegraph: ", ""))) end

local function warn(fmt, ...) io.stderr:write("flamegraph: ", string.format(fmt, ...), "\n") end

-- The input at path for the readers ({text = what was read, file = the
-- rest}), and what it is: "perf" when a line among the first ones is one
-- only perf script prints, else "folded".
local function open_input(path)
  local f, why = io.stdin, nil
  if path ~= "-" then f, why = io.open(path) end
  if not f then return nil, why end
  local seen, kind = {}, o.from or "folded"
  while #seen < 64 do
    local l = f:read("L")
    if not l then break end
    seen[#seen + 1] = l
    -- a perf.data (or another binary file) is no text to fold
    if #seen == 1 and l:sub(1, 8) == "PERFILE2" then return {file = f}, "perf.data" end
    if l:find("\0", 1, true) then return {file = f}, "binary" end
    if o.from then break end
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
  if kind == "perf.data" or kind == "binary" then
    if input.file ~= io.stdin then input.file:close() end
    if kind == "perf.data" then
      warn("%s is a perf.data file, not text: give it the text of perf script (perf script -i %s | ltap flamegraph)",
        name, path == "-" and "FILE" or path)
    else
      warn("%s is binary, not text: flame graphs are drawn from folded stacks or the text of perf script", name)
    end
    return nil
  end
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
    local why
    n, why = fg.diff(before, after, out, graph)
    if not n then warn("cannot write %s", why); exit(1); return end
  else
    local list = read(files[1] or "-")
    if not list then exit(1); return end
    if o.folded then
      local lines, why = folded.write((folded.merge(list)), o.folded)
      if not lines then warn("cannot write %s: %s", o.folded, why); exit(1); return end
      if o.folded ~= "-" then io.stderr:write(string.format("flamegraph: %d stacks written to %s\n", lines, o.folded)) end
    end
    if out then
      local why
      n, why = fg.write(list, out, graph)
      if not n then warn("cannot write %s", why); exit(1); return end
    end
  end
  if out and out ~= "-" then io.stderr:write(string.format("flamegraph: %d frames written to %s\n", n, out)) end
  exit(0)
end)

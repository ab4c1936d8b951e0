-- name: annotate
-- summary: a function's instructions and source lines with their share of CPU samples, as perf annotate
-- usage: ltap annotate SYMBOL [-F HZ] [-p PID | -c CMD | -a] [-d DURATION] | ltap annotate SYMBOL -i FILE
-- example:
--   Sorted summary for file /usr/local/bin/hot
--   ----------------------------------------------
--
--   *  59.60 hot.c:26	sink += i ^ (sink >> 3);
--   *  40.30 hot.c:25	for (unsigned long i = 0; i < rounds; i++) /* HOT_BEGIN */
--    Percent |	Source code & Disassembly of hot for cpu-clock (990 samples, percent: local period)
--   --------------------------------------------------------------------------------------------------------
--            : 26   	sink += i ^ (sink >> 3);
--       33.03 :   1201:   mov    0x2e48(%rip),%rcx        # 4050 <sink>
--
-- Samples cpu-clock at HZ (default 999) on every CPU, system-wide unless -p
-- or -c, until -d, the command's end or ^C, and annotates SYMBOL: the share
-- of its samples per source line (DWARF, "*" at 5% or more) and per
-- instruction (objdump's text, decoded with capstone), the source lines
-- interleaved. -i FILE annotates a saved profile instead: perf's perf.data
-- (perf record -g), or perf script text with offsets (ltap profile --save,
-- perf script -F +symoff).
local getopt = require("ltap.getopt")
local annotate = require("ltap.annotate")

local opts, rest = getopt{
  {"-F, --freq", "integer", "samples per second per CPU, live (default 999)", min = 1, max = 100000, arg = "HZ"},
  {"-i, --input", "string", "annotate a saved profile: a perf.data, or perf script text with offsets",
    arg = "FILE"},
  targets = true,
}
if #rest ~= 1 then getopt.error(#rest == 0 and "which function? (SYMBOL)" or "one function at a time") end
if opts.input and (opts.freq or opts.pid or opts.command or opts.all or opts.duration or opts.record) then
  getopt.error("-i reads a saved profile: -F, -p, -c, -a, -d and --record are for a live one")
end
local a = annotate.new(rest[1])
local print_opts = {color = ltap.term.interactive(), event = "cpu-clock"}

local function report()
  local ok, err = a:print(io.stdout, print_opts)
  if not ok then io.stderr:write("ltap: annotate: " .. err .. "\n") end
  exit(ok and 0 or 1)
end

if opts.input then
  -- a file that cannot be read is a fact of the world: one line, exit 1
  local function load()
    local f, err = io.open(opts.input, "rb")
    if not f then return nil, err end
    local magic = f:read(8)
    f:close()
    if magic == "PERFILE2" then
      local rows, why = ltap.perfdata(opts.input)
      if not rows then return nil, "cannot read " .. opts.input .. ": " .. why end
      print_opts.event = rows.event or "cpu-clock"
      for _, r in ipairs(rows) do a:add(r.module, r.sym, r.off, r.period, r.samples) end
      return true
    end
    local ok, why = annotate.read_text(a, opts.input)
    if ok and a.seen == 0 then ok, why = nil, "no samples (perf script text with call chains?)" end
    if not ok then return nil, "cannot read " .. opts.input .. ": " .. why end
    return true
  end
  begin(function()
    local ok, err = load()
    if not ok then
      io.stderr:write("ltap: annotate: " .. err .. "\n")
      exit(1)
    else
      report()
    end
  end)
else
  local hz = opts.freq or 999
  profile(hz, function(e)
    local sym, module, _, off = e:leaf()
    if sym and a:wants(sym) then
      a:add(module, sym, off, 1)
    else
      a.seen = a.seen + 1
    end
  end)
  finish(report)
end

-- name: top
-- summary: the hottest functions, live and refreshed, as perf top (keys: ? for help)
-- usage: ltap top [-F HZ] [-p PID | -c CMD | -a] [-d DURATION] [-i INTERVAL] [-n ROWS] [-z] [-s SORT] [--comm COMM] [--dso DSO] [--filter PATTERN]
-- example:
--   ltap top  cpu-clock 4000 Hz  2.0 s: 15998 samples (7999/s)  lost 0  ltap CPU 1.9%
--   sort: overhead
--     Overhead   Samples  Command  Shared Object      Symbol
--       96.10%     15374  hot      hot                [.] hot_spin
--        1.05%       168  swapper  [kernel.kallsyms]  [k] pv_native_safe_halt
--
-- Samples cpu-clock at HZ (default 4000, perf top's) on every CPU, system-wide
-- unless -p or -c, and shows the share of samples per command, shared object
-- and symbol ([k] kernel, [.] user) of the frame each sample happened in,
-- every INTERVAL (default 2s), counts decayed by 7/8 at each refresh as perf
-- top does (-z: each refresh shows its own interval). On a terminal the
-- screen is full and takes keys (? lists them: select, sort, filter, zoom
-- into a command or a shared object and out, quit); on anything else it
-- prints one table of at most ROWS rows (default 25) per interval.
local getopt = require("ltap.getopt")
local topview = require("ltap.topview")

local opts, rest = getopt{
  {"-F, --freq", "integer", "samples per second per CPU", default = 4000, min = 1, max = 100000, arg = "HZ"},
  {"-i, --interval", "duration", "refresh every INTERVAL (at least 10ms)", default = "2s", arg = "INTERVAL"},
  {"-n, --rows", "integer", "the ROWS first rows of each table (not on a terminal)", default = 25, min = 1,
    arg = "ROWS"},
  {"-z, --zero", "flag", "each refresh shows its own interval (no decay)"},
  {"-s, --sort", "string", "the column the rows are sorted by", default = "overhead",
    choices = {"overhead", "comm", "dso", "sym"}, arg = "SORT"},
  {"--comm", "string", "zoomed into command COMM", arg = "COMM"},
  {"--dso", "string", "zoomed into shared object DSO", arg = "DSO"},
  {"--filter", "string", "only symbols matching PATTERN (a Lua pattern, else plain text)", arg = "PATTERN"},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end
local hz, interval_ns, nrows = opts.freq, opts.interval, opts.rows
if interval_ns < 10000000 then getopt.error("-i: an interval under 10ms") end
local view = topview.new{zero = opts.zero, sort = opts.sort, comm = opts.comm, dso = opts.dso, filter = opts.filter}

-- the interval's samples by leaf frame: no table per sample (e:leaf gives values)
local cur = stats{max_keys = 200000, full = "drop"}
profile(hz, function(e)
  local sym, module, kernel, _, addr = e:leaf()
  if addr then cur:inc(e.comm, module or "", sym or addr, kernel) end
end)

local interactive = ltap.term.interactive()
local screen, rows, cols = false, 24, 80
local last_t, last_cpu, last_rate, last_cpu_pct = 0, 0, 0, 0
local quit = false

local function status()
  local lost = ltap.lost()
  return string.format("ltap top  cpu-clock %d Hz  %.1f s: %d samples (%d/s)  lost %d  ltap CPU %.1f%%",
    hz, (ltap.now() - ltap.start_time()) / 1e9, view.seen, last_rate, lost, last_cpu_pct)
end

local function draw()
  if screen then ltap.term.write(view:screen(rows, cols, status())) end
end

-- the interval's rows into the view, and ltap's own CPU share since the last one
local function refresh()
  local keys, counts = cur:rows("count")
  local list = {}
  for i, id in ipairs(keys) do
    local k = cur:row(id)
    list[i] = {k[1], k[2], k[3], k[4], counts[i]}
  end
  cur:clear()
  view:refresh(list)
  local t, cpu = ltap.now(), os.clock()
  local dt = (t - last_t) / 1e9
  if dt > 0 then
    local n = 0
    for _, x in ipairs(list) do n = n + x[5] end
    last_rate = math.floor(n / dt + 0.5)
    last_cpu_pct = 100 * (cpu - last_cpu) / dt
  end
  last_t, last_cpu = t, cpu
end

local function on_key(k)
  if k == "eof" or view:key(k) == "quit" then
    quit = true
    exit()
    return
  end
  if k == "resize" then
    local r, c = ltap.term.size()
    if r then rows, cols = r, c end
  end
  draw()
end

begin(function()
  last_t, last_cpu = ltap.now(), os.clock()
  if interactive then
    local r, c = ltap.term.open(on_key)
    if r then
      screen, rows, cols = true, r, c
      draw()
      -- the first picture sooner than a whole interval
      if interval_ns > 500000000 then after("500ms", function() refresh() draw() end) end
    else
      io.stderr:write("ltap: top: " .. c .. "; printing tables\n")
    end
  end
end)

every(interval_ns / 1e9, function()
  refresh()
  if screen then draw() else io.stdout:write(view:table(nrows, status())) io.stdout:flush() end
end)

finish(function()
  if screen then
    ltap.term.close()
    -- the run ended by itself (-d, the command, ^C): its last picture stays
    if not quit then io.stdout:write(view:table(nrows, status())) end
  elseif cur:rows("count")[1] then
    refresh()
    io.stdout:write(view:table(nrows, status()))
  end
end)

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
local cmdline = require("ltap.cmdline")
local topview = require("ltap.topview")

local usage = "usage: ltap top [-F HZ] [-p PID | -c CMD | -a] [-d DURATION] [-i INTERVAL] [-n ROWS] [-z] " ..
  "[-s overhead|comm|dso|sym] [--comm COMM] [--dso DSO] [--filter PATTERN]"
local opts, rest = getopt(arg, {F = "number", p = "value", c = "value", a = "flag", d = "value", i = "value",
  n = "number", z = "flag", s = "value", comm = "value", dso = "value", filter = "value"}, usage)
if #rest > 0 then error("top: unexpected argument '" .. rest[1] .. "' (" .. usage .. ")", 0) end
cmdline.targets(opts, usage)
local hz = opts.F or 4000
local interval = opts.i or "2s"
local interval_ns, why = ltap.parse_duration(interval)
if not interval_ns or interval_ns < 10000000 then
  error("top: -i: " .. (why or ("interval '" .. interval .. "' under 10ms")), 0)
end
local nrows = opts.n or 25
if math.type(nrows) ~= "integer" or nrows < 1 then error("top: -n: bad row count '" .. tostring(opts.n) .. "'", 0) end
local ok, view = pcall(topview.new, {zero = opts.z, sort = opts.s, comm = opts.comm, dso = opts.dso, filter = opts.filter})
if not ok then error("top: -s: " .. view, 0) end

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

every(interval, function()
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

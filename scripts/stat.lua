-- name: stat
-- summary: perf stat in ltap: counters per command (-r N: mean and +-%), system-wide, per interval
-- usage: ltap stat [-a] [-r N] [-e EVENT[,EVENT...]]... [-d DURATION] [-I MS] [--per-run] [--json] [-o FILE] [-- COMMAND...]
-- example:
--    Performance counter stats for 'sleep 0.05' (5 runs):
--
--                  38      kmem:mm_page_alloc                                       ( +-  1.18% )
--               1.03 msec task-clock                                               ( +-  4.85% )
--     <not supported>      cycles
--
--          0.0515268 +- 0.0000763 seconds time elapsed  ( +-  0.15% )
--
-- With a COMMAND it runs it -r N times (default 1), each run counted from
-- its first instruction with its children, and prints the means, with
-- N > 1 the relative standard error of each mean as perf stat does. With -a
-- and no command it counts the whole system for -d DURATION (or until ^C);
-- -a with a command counts the whole system while the command runs. -I MS
-- prints the counts of every interval. Counters this machine lacks print
-- <not supported>.
--
-- As perf stat: the COMMAND's words are run as they are (no shell); the
-- report goes to standard error, or to FILE with -o; ltap stat exits with
-- the command's exit status (of the last run with -r), and for a command
-- killed by a signal prints "NAME: SIGNAL" and exits 0, as perf does.

local getopt = require("ltap.getopt")
local o, cmd = getopt{
  {"-a, --all-cpus", "flag", "count the whole system (for -d DURATION, until ^C, or while COMMAND runs)"},
  {"-r, --repeat", "integer", "run COMMAND N times: the means, and their relative standard error",
    default = 1, min = 1},
  {"-e, --event", "string", "the counters to read, EVENT,EVENT... (default: task-clock, context-switches, "
    .. "cpu-migrations, page-faults, cycles, instructions)", arg = "EVENT", many = true},
  {"-I, --interval-print", "integer", "with -a, print the counts of every MS milliseconds", min = 1, arg = "MS"},
  {"--per-run", "flag", "print the counts of every run"},
  {"--json", "flag", "the report as one JSON document"},
  {"-o, --output", "string", "write the report to FILE (default: standard error)", arg = "FILE"},
  targets = {"-d"},
  options_first = true,
}
local function fail(msg) getopt.error(msg) end

local events = {}
for _, list in ipairs(o.event or {"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"}) do
  for name in list:gmatch("[^,]+") do events[#events + 1] = name end
end
local runs = o["repeat"]
if #cmd == 0 and not o.all_cpus then fail("a COMMAND, or -a for the whole system") end

-- the words as perf stat shows them: joined, not quoted
local cmdline = table.concat(cmd, " ")

-- perf stat's report goes to standard error, or to -o FILE
local out = io.stderr
if o.output then
  local why
  out, why = io.open(o.output, "w")
  if not out then ltap.usage_error("-o: cannot open " .. why) end
end
local function say(f, ...) out:write(string.format(f, ...)) end

-- mean and the standard error of the mean, as perf's stat.c computes them
local function mean_sem(xs)
  local n, sum = #xs, 0
  for _, x in ipairs(xs) do sum = sum + x end
  local mean = sum / n
  if n < 2 then return mean, 0 end
  local ss = 0
  for _, x in ipairs(xs) do ss = ss + (x - mean) ^ 2 end
  return mean, math.sqrt(ss / (n - 1) / n)
end

local function is_clock(name) return name == "task-clock" or name == "cpu-clock" end

local function value_text(name, v)
  if v == nil then return "   <not supported>      " .. name end
  if is_clock(name) then return string.format("%18.2f msec %s", v / 1e6, name) end
  -- perf stat prints counts, and their means, rounded to integers
  return string.format("%18.0f      %s", v, name)
end

local function print_report(title, per_event, elapsed, n)
  say("\n Performance counter stats for %s%s:\n\n", title, n > 1 and string.format(" (%d runs)", n) or "")
  for _, name in ipairs(events) do
    local xs = per_event[name]
    if not xs then
      say("%s\n", value_text(name, nil))
    else
      local mean, sem = mean_sem(xs)
      local line = value_text(name, n == 1 and xs[1] or mean)
      if n > 1 then
        local rel = mean ~= 0 and 100 * sem / mean or 0
        line = string.format("%-84s ( +-%6.2f%% )", line, rel)
      end
      say("%s\n", line)
    end
  end
  if elapsed then
    local mean, sem = mean_sem(elapsed)
    if n > 1 then
      say("\n%18.7f +- %.7f seconds time elapsed  ( +-%6.2f%% )\n\n", mean / 1e9, sem / 1e9, mean ~= 0 and 100 * sem / mean or 0)
    else
      say("\n%18.9f seconds time elapsed\n\n", mean / 1e9)
    end
  end
end

local function print_json(per_event, elapsed, all_runs)
  local json = require("dkjson")
  local counters = {}
  for _, name in ipairs(events) do
    local xs = per_event[name]
    if xs then
      local mean, sem = mean_sem(xs)
      counters[#counters + 1] = {event = name, mean = mean, stderr = sem,
        rel_stderr_percent = mean ~= 0 and 100 * sem / mean or 0, runs = xs}
    else
      counters[#counters + 1] = {event = name, supported = false}
    end
  end
  local doc = {ltap = {version = ltap.version, commit = ltap.commit},
    command = cmdline ~= "" and cmdline or nil, runs = #(elapsed or {}), counters = counters}
  if elapsed then
    local mean, sem = mean_sem(elapsed)
    doc.elapsed_ns = {mean = mean, stderr = sem, runs = elapsed}
  end
  if all_runs then doc.per_run = all_runs end
  out:write(json.encode(doc, {keyorder = {"ltap", "version", "commit", "command", "runs", "elapsed_ns", "counters", "event", "mean", "stderr",
    "rel_stderr_percent", "supported"}}), "\n")
end

if #cmd > 0 and not o.all_cpus then
  -- per command: ltap.measure runs it, counted from its exec
  begin(function()
    local per_event, elapsed, all, last = {}, {}, {}, nil
    for i = 1, runs do
      local r = ltap.measure(cmd, events)
      elapsed[i] = r.elapsed
      for _, name in ipairs(events) do
        local v = r.counts[name]
        if v then per_event[name] = per_event[name] or {}; table.insert(per_event[name], v) end
      end
      all[i] = {elapsed_ns = r.elapsed, status = r.status, counts = r.counts}
      last = r
      if o.per_run and not o.json then
        local parts = {}
        for _, name in ipairs(events) do parts[#parts + 1] = name .. "=" .. tostring(r.counts[name] or "<not supported>") end
        say("run %d: %.6f s  %s\n", i, r.elapsed / 1e9, table.concat(parts, "  "))
      end
    end
    if o.json then
      print_json(per_event, elapsed, o.per_run and all or nil)
    else
      print_report("'" .. cmdline .. "'", per_event, elapsed, runs)
    end
    out:flush()
    -- perf stat's status: the command's; after a signal, its name and 0
    if last.signal then
      io.stderr:write(cmd[1], ": ", last.signal_text, "\n")
      exit(0)
    else
      exit(last.status)
    end
  end)
else
  -- the whole system, for a duration, until ^C, or while the command runs
  if runs > 1 then fail("-r needs a COMMAND") end
  local cs = {}
  for i, name in ipairs(events) do cs[i] = counter(name, {system = true}) end
  -- the run's own end (-d): every interval due at that moment still prints
  if #cmd > 0 then ltap.options{command = cmd} end
  local function snapshot(delta)
    local per_event = {}
    for i, name in ipairs(events) do
      local total, d = cs[i]:read()
      if total then per_event[name] = {delta and d or total} end
    end
    return per_event
  end
  if o.interval_print then
    every(o.interval_print / 1000, function()
      local t = (ltap.now() - ltap.start_time()) / 1e9
      for _, name in ipairs(events) do
        local xs = snapshot(true)[name]
        say("%14.9f %s\n", t, value_text(name, xs and xs[1]))
      end
    end)
  end
  finish(function()
    local elapsed = {ltap.now() - ltap.start_time()}
    local title = #cmd > 0 and "'system wide' while '" .. cmdline .. "' ran" or "'system wide'"
    if o.json then print_json(snapshot(false), elapsed) else print_report(title, snapshot(false), elapsed, 1) end
    out:flush()
  end)
end

-- name: ucalls
-- summary: calls and latency of the functions of a program matching globs, top N
-- usage: ltap ucalls [-p PID | -c CMD | -a] [-d DURATION] [-n TOP] [-L] PATH:GLOB...
-- example:
--   FUNCTION          CALLS   TOTAL ms     AVG us
--   parse_line        41230     812.40      19.70
--   read_block          512     101.20     197.66
--
-- An entry uprobe on every matching function counts calls per function;
-- with -L a return probe too, and the time from entry to return per thread
-- (the innermost call when a function recurses). PATH is a file or a name
-- looked up like u: probes do (the -p target's libraries, $PATH, lib dirs).

local getopt = require("ltap.getopt")
local o, targets = getopt{
  {"-n, --top", "integer", "the TOP functions with the most calls", default = 20, min = 1, arg = "TOP"},
  {"-L, --latency", "flag", "also the time from entry to return (a return probe too)"},
  targets = true,
}
local top, latency = o.top, o.latency or false
if #targets == 0 then getopt.error("no PATH:GLOB given") end

local MAX_FUNCTIONS = 500
local calls = stats()
local starts = {} -- tid -> function -> stack of entry times
local nfuncs = 0

for _, t in ipairs(targets) do
  local path, glob = t:match("^(.*):([^:]+)$")
  if not path then getopt.error("'" .. t .. "' is not PATH:GLOB") end
  -- a PATH that is no program is the command line's mistake, not the script's
  local ok, file, names = pcall(ltap.functions, path, glob)
  if not ok then ltap.usage_error((tostring(file):gsub("^[^:]*:%d+: ", ""))) end
  if #names == 0 then getopt.error("no function of " .. file .. " matches '" .. glob .. "'") end
  nfuncs = nfuncs + #names
  if nfuncs > MAX_FUNCTIONS then getopt.error("more than " .. MAX_FUNCTIONS .. " functions match: narrow the globs") end
  for _, fn in ipairs(names) do
    if latency then
      probe("u:" .. file .. ":" .. fn, function(e)
        local per = starts[e.tid]
        if not per then per = {}; starts[e.tid] = per end
        local s = per[fn]
        if not s then s = {}; per[fn] = s end
        s[#s + 1] = e.time
      end)
      probe("ur:" .. file .. ":" .. fn, function(e)
        local per = starts[e.tid]
        local s = per and per[fn]
        if s and #s > 0 then
          calls:add(fn, e.time - s[#s])
          s[#s] = nil
        end
      end)
    else
      probe("u:" .. file .. ":" .. fn, function(e) calls:add(fn, 0) end)
    end
  end
end

finish(function()
  if latency then
    report(calls, {top = top, keys = {"FUNCTION"},
      header = string.format("%-24s %10s %12s %12s", "FUNCTION", "CALLS", "TOTAL ms", "AVG us"),
      row = function(fn, st) return string.format("%-24s %10d %12.3f %12.3f", fn, st.count, st.sum / 1e6, st.avg / 1e3) end})
  else
    report(calls, {top = top, keys = {"FUNCTION"}, header = string.format("%-24s %10s", "FUNCTION", "CALLS"),
      row = function(fn, st) return string.format("%-24s %10d", fn, st.count) end})
  end
end)

-- name: ucalls
-- summary: calls and latency of the functions of a program matching globs, top N
-- usage: ltap [-p PID] ucalls [-c CMD] [-n TOP] [-L] PATH:GLOB...
-- example:
--   FUNCTION          CALLS   TOTAL ms     AVG us
--   parse_line        41230     812.40      19.70
--   read_block          512     101.20     197.66
--
-- An entry uprobe on every matching function counts calls per function;
-- with -L a return probe too, and the time from entry to return per thread
-- (the innermost call when a function recurses). PATH is a file or a name
-- looked up like u: probes do (the -p target's libraries, $PATH, lib dirs).

local usage_text = "usage: ucalls [-c CMD] [-n TOP] [-L] PATH:GLOB..."
local function usage(msg) error("ucalls: " .. msg .. " (" .. usage_text .. ")", 0) end
local o, targets = require("ltap.getopt")(arg, {c = "value", n = "number", L = "flag"}, usage_text)
local top, latency = o.n or 20, o.L or false
if o.c then ltap.set_command(o.c) end
if #targets == 0 then usage("no PATH:GLOB given") end

local MAX_FUNCTIONS = 500
local calls = stats()
local starts = {} -- tid -> function -> stack of entry times
local nfuncs = 0

for _, t in ipairs(targets) do
  local path, glob = t:match("^(.*):([^:]+)$")
  if not path then usage("'" .. t .. "' is not PATH:GLOB") end
  local file, names = ltap.functions(path, glob)
  if #names == 0 then usage("no function of " .. file .. " matches '" .. glob .. "'") end
  nfuncs = nfuncs + #names
  if nfuncs > MAX_FUNCTIONS then usage("more than " .. MAX_FUNCTIONS .. " functions match: narrow the globs") end
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

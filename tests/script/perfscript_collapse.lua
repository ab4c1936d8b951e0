-- perf script text folded by ltap.perfscript with each option set of
-- FlameGraph's stackcollapse-perf.pl: perfscript_collapse.expected is that
-- Perl script's output on the same files (tests/data/README.md: how it was
-- made). The inputs: a real recording in perf script's default format (tid,
-- period) and in the pid/tid format the Perl's --pid/--tid need, one with
-- -F+srcline, and hand-written edge cases (comms with spaces, C++, Go and
-- Java names, JIT maps, kernel modules, inline chains, a second event, a
-- line that is not perf script); older perf's frames without leading blanks,
-- a symbol printed blank, a last sample no blank line follows.
local ps = require("ltap.perfscript")
local folded = require("ltap.folded")
local cases = {
  {"perf-script.txt", ""}, {"perf-script.txt", "--all"}, {"perf-script.txt", "--kernel --addrs"},
  {"perf-script-pid.txt", "--pid"}, {"perf-script-pid.txt", "--tid --jit"},
  {"perf-script-srcline.txt", "--srcline"},
  {"perf-script-edge.txt", ""}, {"perf-script-edge.txt", "--all"}, {"perf-script-edge.txt", "--addrs"},
  {"perf-script-edge.txt", "--pid"}, {"perf-script-edge.txt", "--tid --all --addrs"},
  {"perf-script-edge.txt", "--event-filter=instructions"},
  {"perf-script-noindent.txt", ""}, {"perf-script-noindent.txt", "--all"}, {"perf-script-noindent.txt", "--addrs"},
  {"perf-script-noindent.txt", "--pid"},
}
begin(function()
  for _, c in ipairs(cases) do
    print("== " .. c[1] .. (c[2] ~= "" and " " .. c[2] or ""))
    local o = {}
    for opt in c[2]:gmatch("%-%-(%S+)") do
      local k, v = opt:match("^([^=]+)=?(.*)$")
      o[(k:gsub("%-", "_"))] = v ~= "" and v or true
    end
    local list, info = ps.read("../data/" .. c[1], o)
    for _, l in ipairs(folded.lines((folded.merge(list)))) do print(l) end
    if info.unrecognized > 0 then print(string.format("-- %d unrecognized, first: line %d", info.unrecognized, info.first_unrecognized)) end
  end
  exit()
end)

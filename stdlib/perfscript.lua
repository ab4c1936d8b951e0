-- perfscript.lua: the text of `perf script` (samples with call chains)
-- folded into stacks, by the rules of FlameGraph's stackcollapse-perf.pl, so
-- `perf script | ltap flamegraph` draws what `perf script |
-- stackcollapse-perf.pl | flamegraph.pl` draws, and `--folded` writes the
-- same lines.
--
--   local ps = require("ltap.perfscript")
--   local list, info = ps.read(path_or_lines, {kernel = true})   -- a stack list (ltap.folded)
--   ps.looks_like(line) -> true for a line only perf script prints
--
-- A sample is a header line ("comm [pid/]tid [cpu] time: [period] event:"),
-- its frames leaf first ("addr sym+off (module)"), a blank line. The stack
-- is the command name, then the frames root first; its count the period
-- when the header shows one (so cpu-clock samples weigh their nanoseconds,
-- as in the Perl), else 1. Frame names are tidied as the Perl does: offsets,
-- arguments ("(int)", but not "(anonymous namespace)" or Go's
-- "pkg.(*T).M") and quotes dropped, ";" made ":", "[unknown]" replaced by
-- the module's base name in brackets, "a->b" (perf's inline chains) split
-- into frames with "_[i]" after the inlined ones, Java's leading "L" dropped
-- for commands named java*.
--
-- Options (the Perl's): pid, tid (the command name becomes comm-PID or
-- comm-PID/TID; perf script must print both: -F comm,pid,tid,...), addrs
-- ("[module <addr>]" for frames without a symbol), kernel ("_[k]" after
-- kernel frames), jit ("_[j]" after frames of /tmp/perf-PID.map), all (both),
-- srcline (the source line that `perf script -F+srcline` prints under each
-- frame is appended: "func:file.c:12"), event_filter (only samples of that
-- event; by default the first event seen, with a note when others are
-- left out).
--
-- Differences from the Perl: a last sample without the blank line after it
-- is kept (the Perl drops it); --inline (addr2line on the modules the input
-- names) is not offered: ltap runs no program on files the user did not name.
local M = {}

local folded = require("ltap.folded")
local find = string.find

-- true for a line that only perf script's sample output has (a frame line,
-- "addr sym (module)", with or without its leading blanks: older perf
-- printed none; or perf script --header's banner). A folded line never
-- matches: it ends with its count.
function M.looks_like(l)
  return (find(l, "^%s*%x+%s+.* %(.*%)%s*$") or find(l, "^# =+ *$") or find(l, "^# captured on")) ~= nil
end

-- read(src, opts) -> stack list (ltap.folded's: samples in input order, each
-- with its count; with opts.merge each stack once, its counts summed),
-- info {unrecognized = N, first_unrecognized = LINE, event = the event kept,
-- left_out = the first other event seen when the kept one was not chosen};
-- nil, message when src cannot be opened. src: as ltap.folded.input takes
-- it. The fold itself is runtime/perfscript.c.
function M.read(src, o)
  local text, f = folded.input(src)
  if not text then return nil, f end
  local stacks, counts, info = ltap.perfscript_fold(text, f, o or {})
  if f and f ~= io.stdin and not (type(src) == "table" and src.file) then f:close() end
  return {stacks = stacks, counts = counts}, info
end

return M

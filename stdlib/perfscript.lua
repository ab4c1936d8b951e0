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
local find, sub, gsub, match = string.find, string.sub, string.gsub, string.match

-- A frame line: "    7f0a12 func+0x1a (/usr/lib/libc.so.6)".
local FRAME = "^%s*([%w_]+)%s*(.+) %((.*)%)"

-- true for a line that only perf script's sample output has (a frame line
-- with its leading blanks, or perf script --header's banner).
function M.looks_like(l)
  return (find(l, "^%s+%x+%s+.* %(.*%)%s*$") or find(l, "^# =+ *$") or find(l, "^# captured on")) ~= nil
end

-- The header's "comm pid[/tid] " prefix, as the Perl's /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/
-- reads it: comm, pid, tid ("" when there is one number, the tid).
local function header(l)
  return match(l, "^(%S..-)%s+(%d+)/*(%d*)%s")
end

-- The period and event at the end of a header (": 1001001 cpu-clock:pppH:"),
-- leftmost colon first, as the Perl's /:\s*(\d+)*\s+(\S+):\s*$/.
local function period_event(l)
  local pos = 1
  while true do
    local c = find(l, ":", pos, true)
    if not c then return end
    local period, event = match(l, "^:%s*(%d*)%s+(%S+):%s*$", c)
    if event then return period, event end
    pos = c + 1
  end
end

-- Everything from the first "(" that does not open "(anonymous namespace)".
local function strip_args(f)
  local pos = 1
  while true do
    local p = find(f, "(", pos, true)
    if not p then return f end
    if sub(f, p, p + 20) ~= "(anonymous namespace)" then return sub(f, 1, p - 1) end
    pos = p + 1
  end
end

-- The frames of one frame line, root first ("a->b": a calls the inlined b),
-- named by the Perl's rules; o: the options, read: the line source (for
-- --srcline). unknown: no symbol and no module, which takes no source line.
local function tidy_frames(o, raw, mod, pc, java, read, parts)
  local np = folded.split(raw, "->", parts) -- perf's inline chain
  local frames, unknown = {}, false
  for i = 1, np do
    local func = parts[i]
    if func == "[unknown]" then
      if mod ~= "[unknown]" then
        func = gsub(mod, "^.*/", "")
      else
        func, unknown = "unknown", true
      end
      func = o.addrs and ("[" .. func .. " <" .. pc .. ">]") or ("[" .. func .. "]")
    end
    if find(func, "[;\"'(]") then
      func = gsub(func, ";", ":")
      if not find(func, "%.%(.*%)%.") then func = strip_args(func) end
      func = gsub(func, "[\"']", "")
    end
    if java and find(func, "/", 1, true) then func = gsub(func, "^L", "") end
    if i > 1 then
      if not find(func, "_[i]", 1, true) then func = func .. "_[i]" end
    elseif o.kernel and (find(mod, "^%[") or find(mod, "vmlinux$")) and not find(mod, "unknown", 1, true) then
      func = func .. "_[k]"
    elseif o.jit and find(mod, "/tmp/perf%-%d+%.map") then
      if not find(func, "_[j]", 1, true) then func = func .. "_[j]" end
    end
    if o.srcline and not unknown then
      local s = read()
      if s then
        s = gsub(gsub(gsub(s, "%[.-%]", ""), "^%s*", ""), "%s*$", "")
        if s ~= "" then func = func .. ":" .. s end
      end
    end
    frames[i] = func
  end
  return frames
end

-- read(src, opts) -> stack list (ltap.folded's: samples in input order, each
-- with its count), info {unrecognized = N, first_unrecognized = LINE,
-- event = the event kept, left_out = the first other event seen when the
-- kept one was not chosen}; nil, message when src cannot be opened.
function M.read(src, o)
  o = o or {}
  local next_line, err = folded.line_source(src)
  if not next_line then return nil, err end
  local with_pid, with_tid, addrs, srcline = o.pid, o.tid, o.addrs, o.srcline
  local to = {kernel = o.kernel or o.all, jit = o.jit or o.all, addrs = addrs, srcline = srcline}
  local cache = {[true] = {}, [false] = {}} -- java?, module, name -> frames
  local filter, defaulted, left_out = o.event_filter or "", false, nil
  local stacks, counts, n = {}, {}, 0
  local stack, depth = {}, 0          -- frames, leaf first
  local pname, period = nil, 1
  local parts = {}
  local lineno = 0
  local function read_line()
    local l = next_line()
    if l then lineno = lineno + 1 end
    return l
  end
  local function tidy(raw, mod, pc, java) return tidy_frames(to, raw, mod, pc, java, read_line, parts) end
  local info = {unrecognized = 0}

  local function flush()
    if pname then
      local t = {pname}
      for i = depth, 1, -1 do t[#t + 1] = stack[i] end
      n = n + 1
      stacks[n], counts[n] = table.concat(t, ";"), period
    end
    depth, pname = 0, nil
  end

  for l in next_line do
    lineno = lineno + 1
    if sub(l, 1, 1) == "#" then
      -- comments, perf script --header
    elseif l == "" or l == "\r" then
      flush()
    else
      local comm, pid, tid = header(l)
      if comm then
        if tid == "" or tid == "0" then tid, pid = pid, "?" end
        local p, event = period_event(l)
        local keep = true
        if event then
          if filter == "" then
            filter, defaulted = event, true
          elseif event ~= filter then
            if defaulted then left_out = left_out or event end
            keep = false
          end
        end
        if keep then
          period = (p and p ~= "" and tonumber(p) ~= 0) and tonumber(p) or 1
          if with_tid then pname = comm .. "-" .. pid .. "/" .. tid
          elseif with_pid then pname = comm .. "-" .. pid
          else pname = comm end
          pname = gsub(pname, " ", "_")
        end
      else
        local pc, raw, mod = match(l, FRAME)
        if not pc then
          info.unrecognized = info.unrecognized + 1
          info.first_unrecognized = info.first_unrecognized or lineno
        elseif pname then
          raw = gsub(raw, "%+0x%x+$", "")
          if sub(raw, 1, 1) ~= "(" then
            local java = find(pname, "^java") ~= nil
            -- the tidied frames of a (name, module) are the same every time,
            -- unless they take the address or the next lines
            local frames
            if srcline or (addrs and find(raw, "[unknown]", 1, true)) then
              frames = tidy(raw, mod, pc, java)
            else
              local bymod = cache[java][mod]
              if not bymod then bymod = {}; cache[java][mod] = bymod end
              frames = bymod[raw]
              if not frames then frames = tidy(raw, mod, pc, java); bymod[raw] = frames end
            end
            -- stack is leaf first: the line's frames go in reverse
            for i = #frames, 1, -1 do depth = depth + 1; stack[depth] = frames[i] end
          end
        end
      end
    end
  end
  flush()
  info.event, info.left_out = filter ~= "" and filter or nil, left_out
  return {stacks = stacks, counts = counts}, info
end

return M

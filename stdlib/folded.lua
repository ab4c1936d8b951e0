-- folded.lua: call stacks in the folded format of FlameGraph, speedscope and
-- inferno: one line per distinct stack, "comm;root;...;leaf COUNT".
--
-- A folded table maps the stack string (root first, the command name first
-- of all) to its sample count: the input of ltap.flamegraph too. Frame names
-- follow one rule, ltap.folded_name (in C, the same code as e:folded()):
-- the symbol with ";" made ":", else "[module]" (its file's base name), else
-- "[unknown]"; kernel frames carry the "_[k]" suffix that
-- stackcollapse-perf.pl --all gives them, so flame graphs colour them apart.
--
-- A stack list, what read() returns, keeps the lines in input order (a flame
-- chart needs it): {stacks = {s1, ...}, counts = {n1, ...}, before = {b1, ...}
-- or nil}; "before" holds the first column of difffolded.pl's two-column
-- lines ("stack BEFORE AFTER").
local M = {}

local folded_name = ltap.folded_name

-- The folded name of one frame (a table of e:stack()).
function M.frame_name(f)
  return folded_name(f.sym, f.module, f.kernel)
end

-- Adds n (default 1) samples of frames (leaf first, as e:stack() gives them) in comm.
function M.add_frames(t, comm, frames, n)
  local parts = { (comm:gsub("[ ;]", "_")) }
  for i = #frames, 1, -1 do parts[#parts + 1] = M.frame_name(frames[i]) end
  local key = table.concat(parts, ";")
  t[key] = (t[key] or 0) + (n or 1)
end

-- Adds one sample: the stack of event e (a profile sample or a probe with
-- stack=true); e:folded() builds the same string in C.
function M.add(t, e, n)
  local key = e:folded()
  t[key] = (t[key] or 0) + (n or 1)
end

-- A count as FlameGraph's Perl prints it: 3, not 3.0; 0.25 as 0.25.
function M.count_text(n)
  if math.type(n) == "float" then
    if n == math.floor(n) and math.abs(n) < 2 ^ 53 then return string.format("%d", n) end
    return string.format("%.15g", n)
  end
  return tostring(n)
end
local count_text = M.count_text

-- The lines "stack count", sorted by stack (the order stackcollapse prints:
-- bytes, as Lua's sort in the C locale; ltap.flame_sort sorts in C).
function M.lines(t)
  local keys, counts = ltap.flame_sort(t)
  for i, k in ipairs(keys) do keys[i] = k .. " " .. count_text(counts[i]) end
  return keys
end

-- Whether t is a stack list ({stacks = {...}, counts = {...}}), not a
-- folded table.
function M.is_list(t)
  return type(t.stacks) == "table" and type(t.counts) == "table"
end

-- Writes the folded lines of t (a folded table, sorted, or a stack list,
-- in its order) to path (io.stdout for "-"); returns the number of lines,
-- or nil, message.
function M.write(t, path)
  local f, err = io.stdout, nil
  if path ~= "-" then f, err = io.open(path, "w") end
  if not f then return nil, err end
  -- the lines of M.lines, written in parts: no string of each whole line;
  -- a stack list ({stacks =, counts =}) in its own order
  local keys, counts
  if M.is_list(t) then
    keys, counts = t.stacks, t.counts
  else
    keys, counts = ltap.flame_sort(t)
  end
  for i, k in ipairs(keys) do f:write(k, " ", count_text(counts[i]), "\n") end
  if f ~= io.stdout then f:close() end
  return #keys
end

-- The lines of src: a path ("-" for standard input), a table of lines, or an
-- iterator of lines. nil, message when the file cannot be opened.
function M.line_source(src)
  if type(src) == "table" then
    local i = 0
    return function() i = i + 1; return src[i] end
  elseif type(src) == "function" then
    return src
  elseif src == "-" then
    return io.stdin:lines()
  end
  local f, err = io.open(src)
  if not f then return nil, err end
  return f:lines()
end

-- src as the C readers (ltap.folded_parse, ltap.perfscript_fold) take it:
-- text, then an open file to read the rest from. A path ("-" for standard
-- input) is its file, read in large blocks; a table of lines or an iterator
-- of lines is their text. src may also be {text = T, file = F} (what was
-- read of F already, as scripts/flamegraph.lua peeks at its input). nil,
-- message when the file cannot be opened.
function M.input(src)
  if type(src) == "table" and (src.text or src.file) then
    return src.text or "", src.file
  elseif type(src) == "table" or type(src) == "function" then
    local lines = {}
    for l in M.line_source(src) do lines[#lines + 1] = l end
    return table.concat(lines, "\n") .. "\n", nil
  elseif src == "-" then
    return "", io.stdin
  end
  local f, err = io.open(src)
  if not f then return nil, err end
  return "", f
end

-- split(s, sep, out) -> n: the fields of s between the (plain) separators,
-- in out[1..n], as Perl's split gives them, so as FlameGraph's scripts read
-- stacks: blank fields kept ("a;;b"), trailing blank ones dropped.
function M.split(s, sep, out)
  local n, pos, find, sub = 0, 1, string.find, string.sub
  while true do
    local a, b = find(s, sep, pos, true)
    n = n + 1
    if not a then out[n] = sub(s, pos); break end
    out[n] = sub(s, pos, a - 1)
    pos = b + 1
  end
  while n > 0 and out[n] == "" do n = n - 1 end
  return n
end

-- read(src) -> stack list (see the top), or nil, message. A line is "stack
-- count", or "stack before after" (difffolded.pl); counts may be fractional
-- ("12.5"), frame names blank ("a;;b"): as flamegraph.pl reads them
-- (runtime/folded.c). Lines that are not are counted in list.ignored
-- (list.first_bad: the first one's number), as flamegraph.pl ignores them.
function M.read(src)
  local text, f = M.input(src)
  if not text then return nil, f end
  local stacks, counts, before, ignored, first_bad = ltap.folded_parse(text, f)
  if f and f ~= io.stdin and not (type(src) == "table" and src.file) then f:close() end
  return {stacks = stacks, counts = counts, before = before, ignored = ignored, first_bad = first_bad}
end

-- merge(list) -> folded table (stack -> count), and the table of "before"
-- counts when the list has two columns.
function M.merge(list)
  local t, b = {}, list.before and {} or nil
  local stacks, counts, before = list.stacks, list.counts, list.before
  for i = 1, #stacks do
    local s = stacks[i]
    t[s] = (t[s] or 0) + counts[i]
    if b then b[s] = (b[s] or 0) + before[i] end
  end
  return t, b
end

return M

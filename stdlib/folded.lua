-- folded.lua: call stacks in the folded format of FlameGraph, speedscope and
-- inferno: one line per distinct stack, "comm;root;...;leaf COUNT".
--
-- A folded table maps the stack string (root first, the command name first
-- of all) to its sample count: the input of ltap.flamegraph too. Kernel
-- frames carry the "_[k]" suffix that stackcollapse-perf.pl --all gives
-- them, so flame graphs colour them apart; a frame without a symbol is
-- "[module]" (its file's base name) or "[unknown]", as perf's tools print.
local M = {}

-- The folded name of one frame (a table of e:stack()).
function M.frame_name(f)
  local name = f.sym
  if not name then
    name = f.module and ("[" .. f.module:match("[^/]*$") .. "]") or "[unknown]"
  end
  name = name:gsub(";", ":")
  if f.kernel then name = name .. "_[k]" end
  return name
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

-- The lines "stack count", sorted by stack (the order stackcollapse prints).
function M.lines(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. " " .. t[k] end
  return keys
end

-- Writes the folded lines to path; returns the number of lines, or nil, message.
function M.write(t, path)
  local f, err = io.open(path, "w")
  if not f then return nil, err end
  local lines = M.lines(t)
  for _, l in ipairs(lines) do f:write(l, "\n") end
  f:close()
  return #lines
end

return M

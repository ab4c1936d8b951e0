-- annotate.lua: the samples of one function per instruction and per source
-- line, printed as `perf annotate --stdio` prints them (with -l's sorted
-- summary of source lines first).
--
--   local annotate = require("ltap.annotate")
--   local a = annotate.new("hot_spin")
--   a:add(module, sym, off, weight, [count])  -- a sample's leaf frame (sym+off in module)
--   annotate.read_text(a, path)            -- the samples of perf script text (ltap profile --save)
--   a:print(io.stdout, {event = "cpu-clock", color = false})
--
-- A sample counts when its leaf frame's symbol is the one asked for (or
-- that name with a version, "f@@GLIBC_2.2.5" for "f"), by module: a name in
-- several files (main) is annotated in each, the most sampled first.
-- Shares are of the function's samples (perf's "local period"), weighted
-- by the sample's period where the input has one.
local M = {}
M.__index = M

local HIGH, MEDIUM = 5.0, 0.5 -- perf's red and green thresholds (percent)

function M.new(symbol)
  return setmetatable({symbol = symbol, mods = {}, match = {}, seen = 0, seen_weight = 0}, M)
end

-- whether sym names the function asked for (cached per name)
function M:wants(sym)
  local m = self.match[sym]
  if m == nil then
    local w = self.symbol
    m = sym == w or (not w:find("@", 1, true) and sym:sub(1, #w + 1) == w .. "@")
    self.match[sym] = m
  end
  return m
end

-- count: the samples weight stands for (default 1)
function M:add(module, sym, off, weight, count)
  count = count or 1
  self.seen, self.seen_weight = self.seen + count, self.seen_weight + weight
  if not (sym and self:wants(sym)) then return end
  local m = self.mods[module or "[unknown]"]
  if not m then
    m = {module = module or "[unknown]", offs = {}, weight = 0, samples = 0, name = sym}
    self.mods[m.module] = m
  end
  m.offs[off] = (m.offs[off] or 0) + weight
  m.weight, m.samples = m.weight + weight, m.samples + count
end

-- The samples of perf script text: each header ("comm pid/tid [cpu] time:
-- period event:") and its first frame line ("addr sym+0xoff (module)"),
-- weighted by the period. Frames without "+0x" offsets (perf script's
-- default) cannot be placed: counted in self.no_offset. nil, msg when the
-- file cannot be read.
function M.read_text(self, path)
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local want_frame, weight, lineno = false, 1, 0
  self.no_offset, self.bad_lines = 0, 0
  for l in f:lines() do
    lineno = lineno + 1
    if l == "" or l:sub(1, 1) == "#" then
      want_frame = false
    elseif not l:find("^%s") then
      -- a header: the period is the number before the event name at its end
      local p = l:match(":%s*(%d+)%s+[^%s]+:%s*$")
      weight, want_frame = tonumber(p) or 1, true
      if weight == 0 then weight = 1 end
    elseif want_frame then
      want_frame = false
      local sym, off, module = l:match("^%s*%x+%s+(.-)%+0x(%x+)%s+%((.*)%)%s*$")
      if sym then
        self:add(module, sym, tonumber(off, 16), weight)
      elseif l:match("^%s*%x+%s+.-%s+%((.*)%)%s*$") then
        local s = l:match("^%s*%x+%s+(.-)%s+%(")
        if s ~= "[unknown]" then self.no_offset = self.no_offset + 1 end
        self:add(nil, nil, 0, weight)
      else
        self.bad_lines = self.bad_lines + 1
        self.first_bad = self.first_bad or lineno
      end
    end
  end
  f:close()
  return true
end

-- the modules with samples of the function, most sampled first
function M:modules()
  local list = {}
  for _, m in pairs(self.mods) do list[#list + 1] = m end
  table.sort(list, function(a, b)
    if a.weight ~= b.weight then return a.weight > b.weight end
    return a.module < b.module
  end)
  return list
end

local function colored(color, pct, s)
  if not color then return s end
  if pct >= HIGH then return "\27[31m" .. s .. "\27[0m" end
  if pct >= MEDIUM then return "\27[32m" .. s .. "\27[0m" end
  return s
end

local function basename(p) return (p:match("[^/]*$")) end

-- Prints the annotation of the function in module m: the source lines by
-- share (perf annotate -l's "Sorted summary"), then perf annotate --stdio's
-- table: every instruction with its share, the source lines interleaved.
-- nil, msg when the module cannot be read.
function M:print_module(m, out, o)
  o = o or {}
  local d, err = ltap.disasm(m.module, m.name)
  if not d then return nil, err end
  local by_addr, per_line, order, sources = {}, {}, {}, {}
  local placed = 0
  for _, ins in ipairs(d.insns) do by_addr[ins.addr - d.start] = ins end
  for off, w in pairs(m.offs) do
    local ins = by_addr[off]
    if ins then
      ins.weight = w
      placed = placed + w
    end
  end
  local total = m.weight
  local function pct(w) return total > 0 and 100 * w / total or 0 end
  for _, ins in ipairs(d.insns) do
    if ins.file and (ins.weight or 0) > 0 then
      local k = ins.file .. ":" .. ins.line
      if not per_line[k] then
        per_line[k] = {file = ins.file, line = ins.line, weight = 0}
        order[#order + 1] = per_line[k]
      end
      per_line[k].weight = per_line[k].weight + ins.weight
    end
  end
  local function source(file, line)
    local lines = sources[file]
    if lines == nil then
      lines = ltap.source(file, m.module) or false
      sources[file] = lines
    end
    return lines and lines[line]
  end
  table.sort(order, function(a, b)
    if a.weight ~= b.weight then return a.weight > b.weight end
    if a.file ~= b.file then return a.file < b.file end
    return a.line < b.line
  end)
  out:write("\nSorted summary for file " .. m.module .. "\n")
  out:write("----------------------------------------------\n\n")
  for _, l in ipairs(order) do
    local p = pct(l.weight)
    local s = string.format("%8.2f %s:%d", p, basename(l.file), l.line)
    if p >= HIGH then s = "*" .. s:sub(2) end
    local text = source(l.file, l.line)
    out:write(colored(o.color, p, s .. (text and ("\t" .. text:gsub("^%s+", "")) or "")) .. "\n")
  end
  out:write(string.format(" Percent |\tSource code & Disassembly of %s for %s (%d samples, percent: local period)\n",
    basename(m.module), o.event or "cpu-clock", m.samples))
  out:write(string.rep("-", 104) .. "\n")
  out:write("         :\n")
  out:write(string.format("         :      %016x <%s>:\n", d.start, m.name))
  local last_file, last_line
  for _, ins in ipairs(d.insns) do
    if ins.file and (ins.file ~= last_file or ins.line ~= last_line) then
      local text = source(ins.file, ins.line)
      if ins.file ~= last_file and last_file then
        out:write(string.format("         :      %s:%d\n", basename(ins.file), ins.line))
      end
      out:write(string.format("         : %-5d%s\n", ins.line, text and text:gsub("^%s+", "") or ""))
      last_file, last_line = ins.file, ins.line
    end
    local p = pct(ins.weight or 0)
    out:write(colored(o.color, p, string.format("%8.2f :%7x:   %s", p, ins.addr, ins.text)) .. "\n")
  end
  if placed < total then
    out:write(string.format("\n(%.2f%% of the samples fall between instructions: %s changed since they were taken?)\n",
      pct(total - placed), m.module))
  end
  return true
end

-- Prints every module's annotation; nil, msg when none has samples of the
-- function (the message says how many samples there were) or none can be
-- read (kernel code, a file gone); the others are named on stderr.
function M:print(out, o)
  local mods = self:modules()
  if #mods == 0 then
    local why = string.format("no sample in %s (of %d samples)", self.symbol, self.seen)
    if (self.no_offset or 0) > 0 then
      why = why .. string.format("; %d frames have no +0x offset: record them with perf script -F +symoff", self.no_offset)
    end
    return nil, why
  end
  local printed, why = 0, nil
  for _, m in ipairs(mods) do
    local ok, err
    if m.module:match("^%[") then
      ok, err = nil, string.format("%s in %s: kernel code is not annotated (no vmlinux is read)", self.symbol, m.module)
    else
      if printed > 0 then out:write("\n") end
      ok, err = self:print_module(m, out, o)
    end
    if ok then
      printed = printed + 1
    elseif printed > 0 or why then
      io.stderr:write("ltap: annotate: " .. err .. "\n")
    else
      why = err -- said once, as the reason, when nothing can be printed
    end
  end
  if printed == 0 then return nil, why end
  if why then io.stderr:write("ltap: annotate: " .. why .. "\n") end
  return true
end

return M

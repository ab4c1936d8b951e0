-- topview.lua: the table of `ltap top`, apart from the samples and the
-- terminal: counts per (command, shared object, symbol) decayed at every
-- refresh as perf top decays them, the sort, the filter, the zoom into a
-- command or a shared object, the selection, and the screen or the plain
-- table they make.
--
--   local topview = require("ltap.topview")
--   local v = topview.new{zero = false, sort = "overhead", comm = nil, dso = nil, filter = nil}
--   v:refresh(rows)                 -- rows: {comm, module, sym, kernel, count} of one interval
--   v:key(name) -> "quit" | nil     -- a key (runtime/term.h's names) changes the view
--   v:screen(rows, cols, status)    -- the whole screen, escape sequences included
--   v:table(n, status)              -- the plain table (a non-terminal), at most n rows
--
-- Counts: at each refresh the kept counts are multiplied by 7/8 (integer),
-- as perf top's hists__decay_entries does, and the interval's counts are
-- added; with zero, each refresh shows its interval only (perf top -z).
-- Shares are of every sample kept, whatever the zoom or filter shows (perf's
-- default, not --percentage relative).
local M = {}
M.__index = M

local SORTS = {"overhead", "comm", "dso", "sym"}
local SORT_NAMES = {overhead = "overhead", comm = "command", dso = "shared object", sym = "symbol"}
local HELP = {
  "ltap top: keys",
  "",
  "  up/down, k/j      select a row (pgup/pgdn, home/end: by pages, to the ends)",
  "  s                 sort by the next column (overhead, command, shared object, symbol)",
  "  S                 reverse the order",
  "  /                 filter symbols by a pattern (Lua pattern; plain text if it is not one);",
  "                    Enter sets it, an empty one clears it, Esc leaves it as it was",
  "  z                 zoom into the selected row's command (again: out of it)",
  "  d                 zoom into the selected row's shared object (again: out of it)",
  "  Esc, backspace    zoom out one level",
  "  ?                 this help (any key closes it)",
  "  q                 quit",
}

function M.new(o)
  o = o or {}
  local v = setmetatable({
    acc = {},          -- key -> row {comm, dso, sym, kernel, count}
    total = 0,         -- samples kept (decayed)
    seen = 0,          -- samples since the start
    zero = o.zero,
    sort = o.sort or "overhead",
    desc = (o.sort or "overhead") == "overhead",
    zoom = {},         -- {kind = "comm"|"dso", value = ...}, innermost last
    filter = o.filter,
    sel = 1, first = 1, sel_key = nil,
    mode = nil,        -- "help", "filter" (typing one)
    input = "",
    message = nil,
  }, M)
  local found = false
  for _, s in ipairs(SORTS) do found = found or s == v.sort end
  if not found then error("bad sort '" .. tostring(v.sort) .. "' (overhead, comm, dso, sym)", 0) end
  if o.comm then v.zoom[#v.zoom + 1] = {kind = "comm", value = o.comm} end
  if o.dso then v.zoom[#v.zoom + 1] = {kind = "dso", value = o.dso} end
  return v
end

-- a module path as perf names the shared object: its base name
local function dso_name(module)
  if module == nil or module == "" then return "[unknown]" end
  return module:match("[^/]*$")
end

-- rows: {comm, module, sym (a name or the address), kernel, count} of one interval
function M:refresh(rows)
  local acc, total = self.acc, 0
  if self.zero then
    acc = {}
  else
    for k, r in pairs(acc) do
      r.count = r.count * 7 // 8
      if r.count == 0 then acc[k] = nil else total = total + r.count end
    end
  end
  for _, x in ipairs(rows) do
    local comm, module, sym, kernel, n = x[1], x[2], x[3], x[4], x[5]
    local name = type(sym) == "number" and string.format("0x%016x", sym) or sym
    local key = comm .. "\0" .. (module or "") .. "\0" .. name .. (kernel and "\0k" or "\0u")
    local r = acc[key]
    if not r then
      r = {comm = comm, dso = dso_name(module), sym = name, kernel = kernel, count = 0, key = key}
      acc[key] = r
    end
    r.count = r.count + n
    total = total + n
    self.seen = self.seen + n
  end
  self.acc, self.total = acc, total
end

local function matches(pattern, s)
  local ok, found = pcall(string.find, s, pattern)
  if ok then return found ~= nil end
  return s:find(pattern, 1, true) ~= nil
end

-- the rows the zoom and the filter let through, sorted
function M:visible()
  local list = {}
  for _, r in pairs(self.acc) do
    local keep = true
    for _, z in ipairs(self.zoom) do
      if (z.kind == "comm" and r.comm ~= z.value) or (z.kind == "dso" and r.dso ~= z.value) then keep = false end
    end
    if keep and self.filter and not matches(self.filter, r.sym) then keep = false end
    if keep then list[#list + 1] = r end
  end
  local col, desc = self.sort, self.desc
  table.sort(list, function(a, b)
    if col ~= "overhead" and a[col] ~= b[col] then
      if desc then return a[col] > b[col] end
      return a[col] < b[col]
    end
    if a.count ~= b.count then
      if col == "overhead" and not desc then return a.count < b.count end
      return a.count > b.count
    end
    return a.key < b.key
  end)
  return list
end

function M:zoom_text()
  local parts = {}
  for _, z in ipairs(self.zoom) do parts[#parts + 1] = (z.kind == "comm" and "command " or "dso ") .. z.value end
  return table.concat(parts, " > ")
end

-- the view's state in one line: zoom, filter, sort
function M:state_text()
  local t = {}
  if #self.zoom > 0 then t[#t + 1] = "zoom: " .. self:zoom_text() end
  if self.filter then t[#t + 1] = "filter: " .. self.filter end
  local natural = self.sort == "overhead"
  t[#t + 1] = "sort: " .. SORT_NAMES[self.sort] .. ((self.desc == natural) and "" or " (reversed)")
  return table.concat(t, "   ")
end

local function toggle_zoom(self, kind, value)
  for i, z in ipairs(self.zoom) do
    if z.kind == kind then
      if z.value == value then table.remove(self.zoom, i); return end
      z.value = value
      return
    end
  end
  self.zoom[#self.zoom + 1] = {kind = kind, value = value}
end

-- A key: changes the view; "quit" when it asks to end.
function M:key(k)
  self.message = nil
  if self.mode == "help" then
    self.mode = nil
    return k == "q" and "quit" or nil
  end
  if self.mode == "filter" then
    if k == "enter" then
      self.filter = self.input ~= "" and self.input or nil
      self.mode, self.sel, self.first = nil, 1, 1
    elseif k == "esc" then
      self.mode = nil
    elseif k == "backspace" then
      self.input = self.input:gsub("[%z\1-\127\194-\244][\128-\191]*$", "")
    elseif #k == 1 or (#k > 1 and k:byte(1) >= 0xc0) then
      if #self.input < 200 then self.input = self.input .. k end
    end
    return nil
  end
  local list = self:visible()
  local sel = list[self.sel]
  if k == "q" then
    return "quit"
  elseif k == "?" or k == "h" then
    self.mode = "help"
  elseif k == "down" or k == "j" then
    self.sel = self.sel + 1
  elseif k == "up" or k == "k" then
    self.sel = self.sel - 1
  elseif k == "pgdn" or k == " " then
    self.sel = self.sel + (self.page or 10)
  elseif k == "pgup" then
    self.sel = self.sel - (self.page or 10)
  elseif k == "home" then
    self.sel = 1
  elseif k == "end" then
    self.sel = #list
  elseif k == "s" or k == "S" then
    if k == "s" then
      local i = 1
      for n, s in ipairs(SORTS) do if s == self.sort then i = n end end
      self.sort = SORTS[i % #SORTS + 1]
      self.desc = self.sort == "overhead"
    else
      self.desc = not self.desc
    end
  elseif k == "/" then
    self.mode, self.input = "filter", self.filter or ""
  elseif k == "z" or k == "d" then
    if sel then
      toggle_zoom(self, k == "z" and "comm" or "dso", k == "z" and sel.comm or sel.dso)
      self.sel, self.first = 1, 1
    else
      self.message = "no row selected"
    end
  elseif k == "esc" or k == "backspace" or k == "left" then
    if #self.zoom > 0 then
      table.remove(self.zoom)
      self.sel, self.first = 1, 1
    elseif self.filter and k ~= "left" then
      self.filter = nil
    end
  end
  if self.sel < 1 then self.sel = 1 end
  local now = self:visible()
  if self.sel > #now then self.sel = math.max(#now, 1) end
  self.sel_key = now[self.sel] and now[self.sel].key
  return nil
end

-- s cut to w display columns (UTF-8 aware), and padded to w unless cut_only
local function fit(s, w, cut_only)
  local n = utf8.len(s)
  if not n then s = s:gsub("[\128-\255]", "?"); n = #s end
  if n > w then
    if w <= 0 then return "" end
    return s:sub(1, (utf8.offset(s, w + 1) or #s + 1) - 1)
  end
  return cut_only and s or s .. string.rep(" ", w - n)
end

local function cut(s, w) return fit(s, w, true) end

local function widths(list, n)
  local wc, wd = #"Command", #"Shared Object"
  for i = 1, math.min(n, #list) do
    wc = math.max(wc, utf8.len(list[i].comm) or #list[i].comm)
    wd = math.max(wd, #list[i].dso)
  end
  return math.min(wc, 16), math.min(wd, 28)
end

local function row_text(self, r, wc, wd)
  local pct = self.total > 0 and 100 * r.count / self.total or 0
  return string.format("%9.2f%%  %8d  %s  %s  %s %s", pct, r.count, fit(r.comm, wc), fit(r.dso, wd),
    r.kernel and "[k]" or "[.]", r.sym)
end

local function header_text(wc, wd, lead)
  return string.format("%s Overhead  %8s  %s  %s  %s", lead, "Samples", fit("Command", wc), fit("Shared Object", wd), "Symbol")
end

-- The plain table of a non-terminal: a "#" status line, the header, at
-- most n rows, a blank line.
function M:table(n, status)
  local list = self:visible()
  local wc, wd = widths(list, n)
  local out = {"# " .. status, "# " .. self:state_text(), header_text(wc, wd, "#")}
  for i = 1, math.min(n, #list) do out[#out + 1] = row_text(self, list[i], wc, wd) end
  out[#out + 1] = ""
  return table.concat(out, "\n") .. "\n"
end

local REV, NORM, EOL = "\27[7m", "\27[0m", "\27[K"

-- The whole screen for a window of rows x cols: a status line, the view's
-- state, the header, the rows (the selected one in reverse video), the key
-- line (or the filter being typed).
function M:screen(rows, cols, status)
  rows, cols = math.max(rows, 5), math.max(cols, 20)
  local lines = {cut(status, cols), cut(self:state_text(), cols)}
  local room = rows - 4
  self.page = math.max(room - 1, 1)
  if self.mode == "help" then
    lines[#lines + 1] = ""
    for i = 1, room do lines[#lines + 1] = cut(HELP[i] or "", cols) end
  else
    local list = self:visible()
    -- the selection follows its row across refreshes
    if self.sel_key then
      for i, r in ipairs(list) do if r.key == self.sel_key then self.sel = i end end
    end
    if self.sel > #list then self.sel = math.max(#list, 1) end
    if self.sel < self.first then self.first = self.sel end
    if self.sel >= self.first + room then self.first = self.sel - room + 1 end
    if self.first > math.max(#list - room + 1, 1) then self.first = math.max(#list - room + 1, 1) end
    self.sel_key = list[self.sel] and list[self.sel].key
    local wc, wd = widths(list, #list)
    lines[#lines + 1] = REV .. fit(header_text(wc, wd, " "), cols) .. NORM
    for i = self.first, self.first + room - 1 do
      local r = list[i]
      if not r then
        lines[#lines + 1] = (i == 1 and cut(self.total == 0 and "  (no samples yet)" or "  (nothing matches)", cols) or "")
      elseif i == self.sel then
        lines[#lines + 1] = REV .. fit(row_text(self, r, wc, wd), cols) .. NORM
      else
        lines[#lines + 1] = cut(row_text(self, r, wc, wd), cols)
      end
    end
  end
  local last
  if self.mode == "filter" then
    last = "filter (Lua pattern, Enter sets, Esc cancels): " .. self.input .. "_"
  else
    last = self.message or "q quit  ? help  s/S sort  / filter  z/d zoom command/dso  Esc out  up/down select"
  end
  lines[#lines + 1] = cut(last, cols)
  return "\27[H" .. table.concat(lines, EOL .. "\r\n") .. EOL .. "\27[J"
end

return M

-- heatmap.lua: latency heat maps as interactive SVG, after Brendan Gregg's
-- trace2heatmap.pl: time in columns, latency in rows (log2 or linear), each
-- cell coloured by how many events it holds (white to red, the largest
-- count the reddest); hover shows the cell's time range, latency range and
-- count, as its tooltip and on the details line.
--
--   local hm = require("ltap.heatmap")
--   local h = hm.new()
--   h:add(e.time, ns)                           -- an event's time and latency, in ns
--   h:write("lat.svg", {rows = "log2"})         -- cells drawn, or nil and why
--   h:write_text("lat.txt")                     -- "TIME LATENCY" in ns per line:
--     trace2heatmap.pl --unitstime=ns --unitslabel=ns lat.txt > lat.svg
--
-- Options: title ("Latency Heat Map"), start (ns: the first column's start,
-- default the first event's time), step (ns per column; default the 1, 2
-- or 5 times a power of ten that makes at most 100 columns), rows ("log2":
-- a row per power of two of ns, exact; "linear": nrows rows, default 50,
-- from min (0) to max, default the largest latency: larger latencies are
-- left out, and counted), box (a cell's size in px, default 10), fonttype,
-- fontsize. Every event is kept (16 bytes each) until the map is drawn, so
-- its rows can come from the largest latency and its columns from the
-- run's length. The SVG: <svg class="ltap-heatmap" data-total=N>, the
-- cells under <g id="cells">, each a <rect> with data-count, data-t0,
-- data-t1 (ns since start), data-lo, data-hi (ns) and a <title>; the
-- details line <text id="details">; ltapHeatDetails(rect) shows a cell's.
local M = {}

local format, floor, max, min = string.format, math.floor, math.max, math.min
local concat = table.concat
local xml = require("ltap.flamegraph").xml

local Heat = {}
Heat.__index = Heat

function M.new()
  return setmetatable({t = {}, lat = {}, n = 0}, Heat)
end

-- an event at time t (ns) of latency ns
function Heat:add(t, ns)
  local n = self.n + 1
  self.t[n], self.lat[n], self.n = t, ns, n
end

function Heat:count() return self.n end

-- a time span as text with one unit ("1.5 s", "250 ms", "40 us")
local function span(ns)
  local units = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}}
  for _, u in ipairs(units) do
    if ns >= u[1] or u[1] == 1 then
      local v = ns / u[1]
      return (v == floor(v) and format("%d", v) or format("%.3g", v)) .. " " .. u[2]
    end
  end
end
M.span = span

-- the 1, 2 or 5 times a power of ten (ns) that cuts len into at most n columns
local function auto_step(len, n)
  local step = 1
  while true do
    for _, k in ipairs{1, 2, 5} do
      if len / (step * k) < n then return step * k end
    end
    step = step * 10
  end
end

local options_types = {title = "string", start = "number", step = "number", rows = "string", nrows = "number",
  min = "number", max = "number", box = "number", fonttype = "string", fontsize = "number"}

-- The cells: map[col][row] = count, with the rows' bounds and what was left out.
local function bin(h, o)
  local c = {rows = o.rows or "log2", box = o.box or 10, fonttype = o.fonttype or "Verdana",
    fontsize = o.fontsize or 12, title = o.title or "Latency Heat Map"}
  if c.rows ~= "log2" and c.rows ~= "linear" then error("heatmap: rows are 'log2' or 'linear', not '" .. c.rows .. "'", 3) end
  local t, lat, n = h.t, h.lat, h.n
  local t0, t1, lmax = o.start, nil, 0
  for i = 1, n do
    if not t0 or t[i] < t0 then t0 = t[i] end
    if not t1 or t[i] > t1 then t1 = t[i] end
    if lat[i] > lmax then lmax = lat[i] end
  end
  t0, t1 = t0 or 0, t1 or 0
  if o.start and o.start < t0 then t0 = o.start end
  c.t0 = t0
  c.step = o.step or auto_step(t1 - t0 + 1, 100)
  if c.step < 1 then error("heatmap: step must be at least 1 ns", 3) end
  c.ncols = n > 0 and floor((t1 - t0) // c.step) + 1 or 0
  if c.rows == "linear" then
    c.min, c.max, c.nrows = o.min or 0, o.max or max(lmax, 1), o.nrows or 50
    if c.max <= c.min or c.nrows < 1 then error("heatmap: linear rows need min < max and nrows >= 1", 3) end
    c.lstep = (c.max - c.min) / c.nrows
  end
  local map, largest, out, rlo, rhi = {}, 0, 0, nil, nil
  for i = 1, n do
    local l, row = lat[i], nil
    if c.rows == "log2" then
      row = 0
      local v = l
      while v >= 2 do v = v // 2; row = row + 1 end
      if l < 1 then row = -1 end -- [0, 1)
    elseif l >= c.min and l <= c.max then
      row = min(c.nrows - 1, floor((l - c.min) / c.lstep))
    end
    if row then
      local col = (t[i] - t0) // c.step
      local m = map[col]
      if not m then m = {}; map[col] = m end
      local k = (m[row] or 0) + 1
      m[row] = k
      if k > largest then largest = k end
      if not rlo or row < rlo then rlo = row end
      if not rhi or row > rhi then rhi = row end
    else
      out = out + 1
    end
  end
  if c.rows == "linear" then rlo, rhi = 0, c.nrows - 1 end
  c.map, c.largest, c.out, c.rlo, c.rhi = map, largest, out, rlo or 0, rhi or 0
  return c
end

-- a row's latency range [lo, hi) in ns
local function row_range(c, row)
  if c.rows == "log2" then
    if row < 0 then return 0, 1 end
    return 1 << row, 1 << (row + 1)
  end
  return c.min + row * c.lstep, c.min + (row + 1) * c.lstep
end

-- white to red by count / largest, trace2heatmap.pl's "linear" scale
local function color(ratio)
  return format("rgb(255,%.0f,%.0f)", 240 - 240 * ratio, 220 - 220 * ratio)
end

local SCRIPT = [==[
<script type="text/ecmascript"><![CDATA[
(function () {
  "use strict";
  var svg = document.currentScript ? document.currentScript.closest("svg") : null;
  if (!svg) svg = document.querySelector("svg.ltap-heatmap");
  var details = svg.querySelector("#details"), cells = svg.querySelector("#cells");
  function show(r) { details.textContent = r ? r.querySelector("title").textContent : " "; }
  cells.addEventListener("mouseover", function (e) { if (e.target.tagName == "rect") show(e.target); });
  cells.addEventListener("mouseout", function () { show(null); });
  window.ltapHeatDetails = function (r) { show(r); return details.textContent; };
})();
]]></script>]==]

-- The SVG text of h's heat map, and the cells drawn.
function M.svg(h, o)
  ltap.check_options(o, options_types, "heatmap", 2)
  local c = bin(h, o or {})
  local fs, box = c.fontsize, c.box
  local nrows = c.rhi - c.rlo + 1
  local lw = 9 * fs * 0.6 + 10                          -- the latency labels' column
  local xpad, ypad1, ypad2 = 10, fs * 3, fs * 4.5
  local width = max(500, floor(lw + c.ncols * box + 2 * xpad))
  local height = floor(ypad1 + nrows * box + ypad2)
  local x0, ybase = lw + xpad, height - ypad2         -- the cells' left, the bottom row's bottom
  local out = {}
  local function w(s) out[#out + 1] = s end
  w('<?xml version="1.0" standalone="no"?>')
  w(format('<svg class="ltap-heatmap" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d"'
    .. ' xmlns="http://www.w3.org/2000/svg" data-total="%d" data-out="%d" data-step="%d" data-rows="%s">',
    width, height, width, height, h.n - c.out, c.out, c.step, c.rows))
  w(format('<style type="text/css">text { font-family:%s; font-size:%dpx; fill:rgb(0,0,0); }'
    .. ' #title { text-anchor:middle; font-size:%dpx; } .ylabel { text-anchor:end; }'
    .. ' #cells > rect:hover { stroke:black; stroke-width:0.5; }</style>', xml(c.fonttype), fs, fs + 5))
  w(format('<rect id="background" x="0" y="0" width="%d" height="%d" fill="rgb(255,255,255)"/>', width, height))
  w(format('<text id="title" x="%d" y="%d">%s</text>', width // 2, fs * 2, xml(c.title)))
  local sub = format("%d events, %s a column, %s rows", h.n - c.out, span(c.step), c.rows)
  if c.out > 0 then sub = sub .. format(" (%d above %s not drawn)", c.out, span(c.max)) end
  w(format('<text id="subtitle" x="%d" y="%d" text-anchor="middle">%s</text>', width // 2, floor(fs * 2 + fs * 1.2), xml(sub)))
  w(format('<text id="details" x="%d" y="%d"> </text>', xpad, height - fs // 2))
  -- latency labels: every row of a log2 map, every fifth of a linear one
  for row = c.rlo, c.rhi do
    if c.rows == "log2" or (row - c.rlo) % 5 == 0 then
      local lo = row_range(c, row)
      w(format('<text class="ylabel" x="%d" y="%d">%s</text>', floor(x0 - 4), floor(ybase - (row - c.rlo) * box - 1),
        xml(span(lo))))
    end
  end
  -- time labels: about every 80 px
  local every = max(1, floor(80 / box + 0.5))
  for col = 0, c.ncols - 1, every do
    w(format('<text class="xlabel" x="%d" y="%d">%s</text>', floor(x0 + col * box), floor(ybase + fs * 1.3),
      xml(span(col * c.step))))
  end
  w(format('<text id="xaxis" x="%d" y="%d" text-anchor="middle">Time</text>', floor(x0 + c.ncols * box / 2),
    floor(ybase + fs * 2.6)))
  w('<g id="cells">')
  local drawn = 0
  for col = 0, c.ncols - 1 do
    local m = c.map[col]
    if m then
      local ctotal = 0
      for _, k in pairs(m) do ctotal = ctotal + k end
      for row = c.rlo, c.rhi do
        local k = m[row]
        if k then
          local lo, hi = row_range(c, row)
          local x, y = x0 + col * box, ybase - (row - c.rlo + 1) * box
          w(format('<rect x="%s" y="%s" width="%d" height="%d" fill="%s" data-count="%d" data-col="%d" data-row="%d"'
            .. ' data-t0="%d" data-t1="%d" data-lo="%s" data-hi="%s"><title>time %s to %s, latency %s to %s: %d'
            .. ' (%.1f%% of the column)</title></rect>',
            x, y, box, box, color(k / c.largest), k, col, row, col * c.step, (col + 1) * c.step,
            format("%.17g", lo), format("%.17g", hi), span(col * c.step), span((col + 1) * c.step),
            span(lo), span(hi), k, 100 * k / ctotal))
          drawn = drawn + 1
        end
      end
    end
  end
  w('</g>')
  w(SCRIPT)
  w('</svg>')
  return concat(out, "\n") .. "\n", drawn
end

-- write(path, opts): the SVG into path ("-": standard output); the cells
-- drawn, or nil and why the file could not be written
function Heat:write(path, o)
  local text, drawn = M.svg(self, o)
  local f, err = io.stdout, nil
  if path ~= "-" then f, err = io.open(path, "w") end
  if not f then return nil, err end
  local ok, werr = f:write(text)
  local closed, cerr = true, nil
  if f ~= io.stdout then closed, cerr = f:close() end
  if not ok or not closed then return nil, tostring(path) .. ": " .. tostring(werr or cerr) end
  return drawn
end

-- write_text(path): each event as "TIME LATENCY" in ns, in the order added
-- (trace2heatmap.pl --unitstime=ns --unitslabel=ns reads it); the lines
-- written, or nil and why
function Heat:write_text(path)
  local f, err = io.open(path, "w")
  if not f then return nil, err end
  local t, lat, buf = self.t, self.lat, {}
  for i = 1, self.n do
    buf[#buf + 1] = format("%d %d\n", t[i], lat[i])
    if #buf == 4096 then f:write(concat(buf)); buf = {} end
  end
  f:write(concat(buf))
  local ok, cerr = f:close()
  if not ok then return nil, tostring(path) .. ": " .. tostring(cerr) end
  return self.n
end

function Heat:svg(o) return M.svg(self, o) end

return M

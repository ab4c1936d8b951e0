-- flamegraph.lua: interactive SVG flame graphs from folded stacks, no Perl:
-- icicle graphs, flame charts and differential graphs too, with the options
-- and palettes of FlameGraph's flamegraph.pl.
--
--   local fg = require("ltap.flamegraph")
--   fg.write(stacks, "out.svg", {title = "CPU profile"})  -- stacks: {["comm;f1;f2"] = count}
--   fg.diff(before, after, "diff.svg")                    -- growth red, shrink blue
--     (both: frames drawn, or nil and why the file could not be written)
--   fg.svg(stacks, opts) -> svg text, frames drawn
--
-- stacks is a folded table or a stack list of ltap.folded (input order kept,
-- for flame charts; a list with two columns, difffolded.pl's, draws a
-- differential graph). Options, named as flamegraph.pl's: title, subtitle,
-- width (1200), height (16, of a frame), minwidth (0.1 px, or "N%" of all
-- samples), fonttype, fontsize, fontwidth, countname ("samples"), nametype
-- ("Function:"), colors (hot, mem, io, wakeup, chain, java, js, perl, red,
-- green, blue, aqua, yellow, purple, orange), bgcolors (yellow, blue, green,
-- grey, "#rrggbb"), hash, reverse, inverted, flamechart, negate; and ltap's:
-- maxheight (800 px: deeper graphs get lower frames, down to 12 px, then
-- the deepest levels wait for a click; 0: no limit), diff ("self" or
-- "inclusive"), normalize (diff: scale the first profile to the second's
-- total, as difffolded.pl -n; default true).
--
-- Frames are merged by name under their parent, siblings in name order (the
-- order of the sorted stacks, as flamegraph.pl), so the output is
-- deterministic; a flame chart keeps the input order and merges only
-- neighbours. The "_[k]", "_[j]", "_[i]", "_[w]" suffixes of stackcollapse
-- choose colours and are not shown. The SVG carries its own script: hover
-- shows name, count and share; a click zooms to a frame; "Search" (Ctrl-F)
-- highlights the frames whose name matches a regular expression and shows
-- their share of all samples (nested matches counted once); "ic" (Ctrl-I)
-- makes it ignore case; the page's URL keeps the state (?s=TERM&x=X&y=Y, x
-- and y those of the zoomed frame's rect, as flamegraph.pl's links), so a
-- view can be linked. ltapZoom(g), ltapReset(), ltapSearch(re) and
-- ltapToggleCase() can be called from a page that inlines the SVG.
local M = {}

local folded = require("ltap.folded")

local find, sub, format = string.find, string.sub, string.format
local floor, abs, max, min = math.floor, math.abs, math.max, math.min
local concat = table.concat

local XML = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;"}
local function xml(s)
  return (tostring(s):gsub("[&<>\"']", XML))
end
M.xml = xml -- SVG text and attributes escaped (ltap.heatmap's too)

-- a count in an attribute: exact, short
local function num(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v == floor(v) and abs(v) < 2 ^ 53 then return format("%d", v) end
  return format("%.17g", v)
end

M.palettes = {"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red", "green", "blue", "aqua",
  "yellow", "purple", "orange"}
local PALETTES = {}
for _, p in ipairs(M.palettes) do PALETTES[p] = true end
local BACKGROUNDS = {yellow = {"#eeeeee", "#eeeeb0"}, blue = {"#eeeeee", "#e0e0ff"},
  green = {"#eef2ee", "#e0ffe0"}, grey = {"#f8f8f8", "#e8e8e8"}}
local MIN_ROW = 12 -- px: the lowest frame that still shows a (smaller) label

-- The options with their defaults; a bad value raises "flamegraph: ...".
-- the options of svg/write/diff, with their types (ltap.check_options)
local svg_options = {title = "string", subtitle = "string", width = "number", height = "number",
  frame_height = "number", minwidth = "number|string", maxheight = "number", countname = "string",
  nametype = "string", colors = "string", bgcolors = "string", hash = "boolean", reverse = "boolean",
  inverted = "boolean", flamechart = "boolean", negate = "boolean", normalize = "boolean",
  diff = "string", fonttype = "string", fontsize = "number", fontwidth = "number"}

-- How far up the stack the first caller outside this module is, counted
-- from the function calling this one: an option's error points at the
-- script, whether it called svg, write or diff.
local function script_level()
  local here, l = debug.getinfo(1, "S").source, 3
  while debug.getinfo(l, "S") and debug.getinfo(l, "S").source == here do l = l + 1 end
  return l - 1
end

local function options(o)
  local level = script_level()
  ltap.check_options(o, svg_options, "flamegraph", level)
  o = o or {}
  local c = {}
  for k, v in pairs(o) do c[k] = v end
  local function bad(what) error("flamegraph: " .. what, level + 1) end
  c.width = tonumber(o.width or 1200) or bad("bad width '" .. tostring(o.width) .. "'")
  c.height = tonumber(o.height or o.frame_height or 16) or bad("bad height '" .. tostring(o.height) .. "'")
  c.fontsize = tonumber(o.fontsize or 12) or bad("bad fontsize")
  c.fontwidth = tonumber(o.fontwidth or 0.59) or bad("bad fontwidth")
  c.fonttype = o.fonttype or "Verdana"
  c.countname = o.countname or "samples"
  c.nametype = o.nametype or "Function:"
  c.colors = o.colors or "hot"
  if not PALETTES[c.colors] then bad("unknown palette '" .. tostring(c.colors) .. "' (" .. concat(M.palettes, ", ") .. ")") end
  local bg = o.bgcolors
  if not bg then
    bg = c.colors == "mem" and "green" or ((c.colors == "io" or c.colors == "wakeup" or c.colors == "chain") and "blue")
      or ((c.colors == "hot" or c.colors == "java" or c.colors == "js" or c.colors == "perl") and "yellow") or "grey"
  end
  c.background = BACKGROUNDS[bg] or (tostring(bg):match("^#%x%x%x%x%x%x$") and {bg, bg})
    or bad("unknown background '" .. tostring(bg) .. "' (yellow, blue, green, grey, #rrggbb)")
  local mw = tostring(o.minwidth or 0.1)
  local v, pct = mw:match("^([%d.]+)(%%?)$")
  c.minwidth = tonumber(v) or bad("bad minwidth '" .. mw .. "' (pixels, or N% of all samples)")
  c.minwidth_pct = pct == "%"
  c.maxheight = tonumber(o.maxheight or 800) or bad("bad maxheight")
  c.diff = o.diff or "self"
  if c.diff ~= "self" and c.diff ~= "inclusive" then bad("diff is 'self' or 'inclusive', not '" .. tostring(c.diff) .. "'") end
  if c.width < 2 * 10 + 1 then bad("width " .. c.width .. " is too small") end
  if c.height < 1 then bad("bad height " .. c.height) end
  c.title = o.title or (c.flamechart and "Flame Chart") or (c.inverted and "Icicle Graph") or "Flame Graph"
  return c
end

-- Colours: per frame, in C (runtime/flame.c): flamegraph.pl's palettes
-- (the "hot" one with ltap's kernel frames in orange), its vector hash
-- (--hash), its differential rule (a change on the scale of the largest
-- one, saturated there).

-- Layout ------------------------------------------------------------------

-- The frames of a stack: blank names kept, trailing blank ones dropped.
local split_fields = folded.split
local function split(stack, out) return split_fields(stack, ";", out) end

local function reversed(stack, buf)
  local n = split(stack, buf)
  local t = {}
  for i = n, 1, -1 do t[#t + 1] = buf[i] end
  return concat(t, ";")
end

-- The input as arrays in drawing order: stacks, counts, before counts (or
-- nil). A table is merged and sorted; a list keeps its order for a flame
-- chart, else it is merged and sorted too.
local function arrange(stacks, before, c)
  local keys, cnt, cnt0 = {}, {}, nil
  local buf = {}
  if folded.is_list(stacks) then
    if c.flamechart then
      for i, s in ipairs(stacks.stacks) do keys[i] = c.reverse and reversed(s, buf) or s end
      for i, n in ipairs(stacks.counts) do cnt[i] = n end
      if stacks.before then cnt0 = {}; for i, n in ipairs(stacks.before) do cnt0[i] = n end end
      return keys, cnt, cnt0
    end
    if not c.reverse then return ltap.flame_merge(stacks.stacks, stacks.counts, stacks.before) end
    stacks, before = folded.merge(stacks)
  end
  local t, t0 = stacks, before
  if c.reverse then
    t, t0 = {}, before and {} or nil
    for s, n in pairs(stacks) do local r = reversed(s, buf); t[r] = (t[r] or 0) + n end
    if before then for s, n in pairs(before) do local r = reversed(s, buf); t0[r] = (t0[r] or 0) + n end end
  end
  -- the stacks (of both tables) in byte order, their counts (0 where absent)
  return ltap.flame_sort(t, t0)
end

-- chain graphs: the frames after the first "--" are wakers ("_[w]")
local function chain_marks(keys)
  for i, s in ipairs(keys) do
    local a, b = find(s, ";--;", 1, true)
    if a then
      local parts, pos = {}, b + 1
      while true do
        local x, y = find(s, ";--;", pos, true)
        parts[#parts + 1] = sub(s, pos, x and x - 1 or -1):gsub(";", "_[w];") .. "_[w]"
        if not x then break end
        pos = y + 1
      end
      keys[i] = sub(s, 1, b) .. concat(parts, ";--;")
    end
  end
end

-- Frames: neighbouring stacks merged, as a flame graph draws them (a frame
-- is a name at a depth spanning the samples of consecutive stacks that
-- share the path to it), and each frame's line of SVG, are made in C
-- (runtime/flame.c, through ltap.flame_layout): per stack and per frame,
-- Lua cost more than flamegraph.pl.

-- Drawing -----------------------------------------------------------------

local SCRIPT = [[
<script type="text/ecmascript"><![CDATA[
(function () {
  "use strict";
  var svg = document.currentScript ? document.currentScript.closest("svg") : null;
  if (!svg) svg = document.querySelector("svg.ltap-flame");
  function num(a) { return +svg.getAttribute(a); }
  var W = num("data-width"), PAD = 10, TOTAL = num("data-total"), CW = num("data-charwidth");
  var FH = num("data-fh"), CAP = num("data-cap"), BASE = num("data-base"), INV = svg.getAttribute("data-inverted") == "1";
  var SEARCH_FILL = "rgb(230,0,230)", NAMETYPE = svg.getAttribute("data-nametype");
  var frames = Array.prototype.slice.call(svg.querySelectorAll("#frames > g"));
  var info = frames.map(function (g) {
    var r = g.querySelector("rect"), t = g.querySelector("text");
    return {g: g, r: r, t: t, name: g.getAttribute("data-name"), x: +g.getAttribute("data-x"),
      w: +g.getAttribute("data-w"), d: +g.getAttribute("data-depth"), h: +(g.getAttribute("data-h") || 0),
      fill: g.getAttribute("data-fill"), rx: r.getAttribute("x"), rw: r.getAttribute("width"),
      ry: r.getAttribute("y"), tx: t.getAttribute("x"), ty: t.getAttribute("y"), label: t.textContent};
  });
  var details = svg.querySelector("#details"), matched = svg.querySelector("#matched");
  var unzoomBtn = svg.querySelector("#unzoom"), searchBtn = svg.querySelector("#search");
  var icBtn = svg.querySelector("#ignorecase");
  var ignorecase = false, term = null, zoomed = null;

  function params() {
    var p = {};
    window.location.search.substr(1).split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) p[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " "));
    });
    return p;
  }
  function setParam(k, v) {
    var p = params(), q = [];
    if (v == null) delete p[k]; else p[k] = v;
    Object.keys(p).forEach(function (k) { q.push(k + "=" + encodeURIComponent(p[k])); });
    try { history.replaceState(null, "", q.length ? "?" + q.join("&") : window.location.pathname); } catch (e) { }
  }
  function label(f, w) {
    var n = Math.floor(w / CW);
    if (n < 3) return "";
    return n < f.name.length ? f.name.slice(0, n - 2) + ".." : f.name;
  }
  function rowY(d) { return INV ? BASE + d * FH : BASE - (d + 1) * FH + 1; }
  function place(f, x0, span, shift) {
    var k = (W - 2 * PAD) / span, nx = PAD + (f.x - x0) * k, nw = f.w * k;
    if (nx < PAD) { nw -= PAD - nx; nx = PAD; }
    if (nx + nw > W - PAD) nw = W - PAD - nx;
    f.r.setAttribute("x", nx.toFixed(1)); f.r.setAttribute("width", Math.max(nw, 0).toFixed(1));
    f.t.setAttribute("x", (nx + 3).toFixed(2));
    f.t.textContent = label(f, nw);
    if (CAP >= 0) {
      var y = rowY(f.d - shift);
      f.r.setAttribute("y", y); f.t.setAttribute("y", (y + 3 + (FH - 1) / 2));
    }
  }
  function restore(f) {
    f.r.setAttribute("x", f.rx); f.r.setAttribute("width", f.rw); f.r.setAttribute("y", f.ry);
    f.t.setAttribute("x", f.tx); f.t.setAttribute("y", f.ty); f.t.textContent = f.label;
  }
  // frames deeper than CAP levels above the lowest shown wait for a zoom
  function mark(f, shift) {
    f.g.classList.toggle("cut", CAP >= 0 && f.d == shift + CAP && f.h > 0);
  }
  function zoom(g) {
    var z = info[frames.indexOf(g)];
    if (!z) return;
    // as many ancestors as fit beside the frame's subtree, the frame itself at least
    var shift = CAP >= 0 ? Math.min(z.d, Math.max(0, z.d + z.h - CAP)) : 0;
    zoomed = z;
    info.forEach(function (f) {
      var inside = f.x >= z.x && f.x + f.w <= z.x + z.w && f.d >= z.d;
      var above = f.d < z.d && f.x <= z.x && f.x + f.w >= z.x + z.w;
      var shown = (inside || above) && (CAP < 0 || (f.d >= shift && f.d <= shift + CAP));
      f.g.classList.toggle("hide", !shown);
      f.g.classList.toggle("parent", shown && above);
      if (shown) place(f, above ? f.x : z.x, above ? f.w : z.w, shift);
      mark(f, shift);
    });
    unzoomBtn.classList.remove("hide");
    setParam("x", z.rx); setParam("y", z.ry);
  }
  function unzoom() {
    zoomed = null;
    info.forEach(function (f) {
      restore(f);
      f.g.classList.remove("parent");
      f.g.classList.toggle("hide", CAP >= 0 && f.d > CAP);
      mark(f, 0);
    });
    unzoomBtn.classList.add("hide");
    setParam("x", null); setParam("y", null);
  }
  function search(t) {
    if (t != null) term = t;
    if (term == null) return 0;
    var re, hits = [], sum = 0, end = -1;
    try { re = new RegExp(term, ignorecase ? "i" : ""); }
    catch (e) { matched.textContent = "Bad pattern: " + term; matched.classList.remove("hide"); return 0; }
    info.forEach(function (f) {
      if (re.test(f.name)) { f.r.setAttribute("fill", SEARCH_FILL); hits.push(f); }
      else f.r.setAttribute("fill", f.fill);
    });
    // nested matches counted once: by x, the widest first
    hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
    hits.forEach(function (f) { if (f.x >= end) { sum += f.w; end = f.x + f.w; } });
    matched.textContent = "Matched: " + (100 * sum / TOTAL).toFixed(1) + "%";
    matched.classList.remove("hide");
    searchBtn.classList.add("show"); searchBtn.textContent = "Reset Search";
    setParam("s", term);
    return sum;
  }
  function resetSearch() {
    term = null;
    info.forEach(function (f) { f.r.setAttribute("fill", f.fill); });
    matched.textContent = " "; matched.classList.add("hide");
    searchBtn.classList.remove("show"); searchBtn.textContent = "Search";
    setParam("s", null);
  }
  function searchPrompt() {
    if (term != null) { resetSearch(); return; }
    var t = window.prompt("Search for (regular expression" + (ignorecase ? ", ignoring case" : "") +
      "; Ctrl-I toggles case):", "");
    if (t) search(t);
  }
  function toggleCase() {
    ignorecase = !ignorecase;
    icBtn.classList.toggle("show", ignorecase);
    setParam("i", ignorecase ? "1" : null);
    if (term != null) search();
  }
  window.ltapZoom = zoom;
  window.ltapReset = unzoom;
  window.ltapSearch = search;
  window.ltapResetSearch = resetSearch;
  window.ltapToggleCase = toggleCase;

  frames.forEach(function (g, i) {
    g.addEventListener("click", function (e) { e.stopPropagation(); zoom(g); });
    g.addEventListener("mouseover", function () { details.textContent = NAMETYPE + " " + g.querySelector("title").textContent; });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  unzoomBtn.addEventListener("click", function (e) { e.stopPropagation(); unzoom(); });
  searchBtn.addEventListener("click", function (e) { e.stopPropagation(); searchPrompt(); });
  icBtn.addEventListener("click", function (e) { e.stopPropagation(); toggleCase(); });
  svg.querySelector("#background").addEventListener("click", function () { if (zoomed) unzoom(); });
  window.addEventListener("keydown", function (e) {
    var k = (e.key || "").toLowerCase();
    if (k == "f3" || e.keyCode === 114 || (e.ctrlKey && (k == "f" || e.keyCode === 70))) { e.preventDefault(); searchPrompt(); }
    else if (e.ctrlKey && (k == "i" || e.keyCode === 73)) { e.preventDefault(); toggleCase(); }
  });

  // the state a link carries: ?i=1 (ignore case), ?x=&y= (the zoomed frame's rect), ?s=TERM
  var p = params();
  if (p.i == "1") toggleCase();
  if (p.x != null && p.y != null) {
    var z = info.filter(function (f) { return f.rx == p.x && f.ry == p.y; })[0];
    if (z) zoom(z.g);
  }
  if (p.s) search(p.s);
})();
]] .. "]]>" .. [[</script>
]]

-- The SVG text, or with file (an io file) the SVG written to it; and the
-- number of frames drawn.
local function render(keys, cnt, cnt0, c, file)
  local total = 0
  for i = 1, #cnt do total = total + cnt[i] end
  local xpad, fs = 10, c.fontsize
  local wpt = total > 0 and (c.width - 2 * xpad) / total or 0
  local minw = c.minwidth_pct and total * c.minwidth / 100 or (wpt > 0 and c.minwidth / wpt or 0)
  local layout = ltap.flame_layout(keys, cnt, cnt0, minw)
  local n, _, _, dmax = layout:info()

  -- the picture's height: lower frames for deep graphs, then a cap
  local ypad1, ypad2, ypad3 = fs * 3, fs * 2 + 10, fs * 2
  local sub_line = c.subtitle and c.subtitle ~= "" and c.subtitle or nil
  local pads = ypad1 + ypad2 + (sub_line and ypad3 or 0)
  local fh, cap, rows = c.height, -1, dmax + 1
  if c.maxheight > 0 and rows * fh + pads > c.maxheight then
    fh = max(min(MIN_ROW, c.height), floor((c.maxheight - pads) / rows))
    if rows * fh + pads > c.maxheight then
      if not sub_line then pads = pads + ypad3 end
      cap = max(0, floor((c.maxheight - pads) / fh) - 1)
      local note = format("%d levels deeper than %d are not drawn: click a dashed frame to see them", dmax - cap, cap)
      sub_line = sub_line and (sub_line .. " \u{b7} " .. note) or note
      rows = cap + 1
    end
  end
  local font = min(fs, max(fh - 3, 1))
  local charw = font * c.fontwidth
  local height = rows * fh + pads
  local base = c.inverted and (ypad1 + (sub_line and ypad3 or 0)) or (height - ypad2)

  local out = {}
  local function w(s) out[#out + 1] = s end
  if file then w = function(s) assert(file:write(s, "\n")) end end
  local bg = c.background
  w('<?xml version="1.0" standalone="no"?>')
  w(format('<svg class="ltap-flame" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" xmlns="http://www.w3.org/2000/svg"'
    .. ' data-width="%d" data-total="%s" data-charwidth="%s" data-fh="%d" data-cap="%d" data-base="%d" data-inverted="%d" data-nametype="%s">',
    c.width, height, c.width, height, c.width, num(total > 0 and total or 1), format("%.4g", charw), fh, cap, base,
    c.inverted and 1 or 0, xml(c.nametype)))
  w(format('<defs><linearGradient id="ltap-bg" y1="0" y2="1" x1="0" x2="0"><stop stop-color="%s" offset="5%%"/>'
    .. '<stop stop-color="%s" offset="95%%"/></linearGradient></defs>', bg[1], bg[2]))
  w(format('<style type="text/css">text { font-family:%s; font-size:%dpx; fill:rgb(0,0,0); }'
    .. ' #frames text { font-size:%dpx; } #search, #ignorecase { opacity:0.1; cursor:pointer; }'
    .. ' #search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }'
    .. ' #title { text-anchor:middle; font-size:%dpx; } #subtitle { text-anchor:middle; }'
    .. ' #unzoom { cursor:pointer; } #frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }'
    .. ' .hide { display:none; } .parent { opacity:0.5; } .cut rect { stroke:rgb(60,60,60); stroke-dasharray:3,2; }</style>',
    xml(c.fonttype), fs, font, fs + 5))
  w(format('<rect id="background" x="0" y="0" width="%d" height="%d" fill="url(#ltap-bg)"/>', c.width, height))
  w(format('<text id="title" x="%d" y="%d">%s</text>', c.width // 2, fs * 2, xml(c.title)))
  if sub_line then w(format('<text id="subtitle" x="%d" y="%d">%s</text>', c.width // 2, fs * 4, xml(sub_line))) end
  w(format('<text id="details" x="%d" y="%s"> </text>', xpad, num(height - ypad2 / 2)))
  w(format('<text id="unzoom" class="hide" x="%d" y="%d">Reset Zoom</text>', xpad, fs * 2))
  w(format('<text id="search" x="%d" y="%d">Search</text>', c.width - xpad - 100, fs * 2))
  w(format('<text id="ignorecase" x="%d" y="%d">ic</text>', c.width - xpad - 16, fs * 2))
  w(format('<text id="matched" class="hide" x="%d" y="%s"> </text>', c.width - xpad - 100, num(height - ypad2 / 2)))
  if total == 0 then
    w(format('<text x="%d" y="%d" text-anchor="middle">No samples</text>', c.width // 2, fs * 5))
  end
  w('<g id="frames">')
  local style = {xpad = xpad, wpt = wpt, charw = charw, fh = fh, base = base, ty_off = 3 + (fh - 1) / 2,
    inverted = c.inverted, cap = cap, fill = cnt0 and c.diff or "palette", palette = c.colors, hash = c.hash,
    negate = c.negate, countname = c.countname}
  if file then
    -- the frames go straight to the file (the bulk of a big graph)
    if assert(layout:svg(style, file)) > 0 then w("") end
  else
    local lines = layout:svg(style)
    if lines ~= "" then w(lines) end
  end
  w('</g>')
  w(SCRIPT)
  w('</svg>')
  if file then return nil, n end
  return concat(out, "\n") .. "\n", n
end

-- flamegraph.svg(stacks, opts) -> svg text, frames drawn. stacks: a folded
-- table or a stack list (two columns: a differential graph).
local function graph(stacks, o)
  local c = options(o)
  local keys, cnt, cnt0 = arrange(stacks, nil, c)
  if c.colors == "chain" then chain_marks(keys) end
  return keys, cnt, cnt0, c
end

function M.svg(stacks, o)
  return render(graph(stacks, o))
end

-- Renders into the file at path ("-": standard output), for write and diff:
-- frames drawn, or nil and why the file could not be written (as io does).
local function write_file(path, keys, cnt, cnt0, c)
  local f, err = io.stdout, nil
  if path ~= "-" then f, err = io.open(path, "w") end
  if not f then return nil, err end
  local ok, why, n = pcall(render, keys, cnt, cnt0, c, f)
  local done, cerr = true, nil
  if f ~= io.stdout then done, cerr = f:close() else done, cerr = f:flush() end
  if not ok then return nil, tostring(path) .. ": " .. tostring(why):gsub("^.-:%d+: ", "") end
  if not done then return nil, tostring(path) .. ": " .. tostring(cerr) end
  return n
end

function M.write(stacks, path, o)
  return write_file(path, graph(stacks, o))
end

-- The before profile scaled to the after profile's total, stack by stack,
-- truncated as difffolded.pl -n does.
local function normalized(before, after)
  local ta, tb = 0, 0
  for _, n in pairs(after) do ta = ta + n end
  for _, n in pairs(before) do tb = tb + n end
  if ta == tb or tb == 0 then return before end
  local t = {}
  for s, n in pairs(before) do t[s] = floor(n * ta / tb) end
  return t
end

-- flamegraph.diff_svg(before, after, opts): frames sized by `after`; with
-- diff = "self" (the default, difffolded.pl + flamegraph.pl's rule) each is
-- coloured by the change of its own samples (before scaled to after's
-- total unless normalize = false), on the scale of the largest change; with
-- diff = "inclusive" by the change of its share of all samples, including
-- its callees', on the scale of the largest such change.
local function diff_graph(before, after, o)
  local c = options(o)
  if type(before.stacks) == "table" then before = folded.merge(before) end
  if type(after.stacks) == "table" then after = folded.merge(after) end
  if o == nil or o.normalize ~= false then before = normalized(before, after) end
  local keys, cnt, cnt0 = arrange(after, before, c)
  if c.colors == "chain" then chain_marks(keys) end
  return keys, cnt, cnt0, c
end

function M.diff_svg(before, after, o)
  return render(diff_graph(before, after, o))
end

function M.diff(before, after, path, o)
  return write_file(path, diff_graph(before, after, o))
end

return M

-- flamegraph.lua: interactive SVG flame graphs from folded stacks, no Perl:
-- icicle graphs, flame charts and differential graphs too, with the options
-- and palettes of FlameGraph's flamegraph.pl.
--
--   local fg = require("ltap.flamegraph")
--   fg.write(stacks, "out.svg", {title = "CPU profile"})  -- stacks: {["comm;f1;f2"] = count}
--   fg.diff(before, after, "diff.svg")                    -- growth red, shrink blue
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

local find, sub, format, byte = string.find, string.sub, string.format, string.byte
local floor, abs, max, min = math.floor, math.abs, math.max, math.min
local concat = table.concat

local XML = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;"}
local function xml(s)
  return (tostring(s):gsub("[&<>\"']", XML))
end

-- a count in an attribute: exact, short
local function num(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v == floor(v) and abs(v) < 2 ^ 53 then return format("%d", v) end
  return format("%.17g", v)
end

-- "1234567" -> "1,234,567", as flamegraph.pl's tooltips
local function commas(s)
  local sign, int = s:match("^([-+]?)(%d+)$")
  if not int then return s end
  local out = int:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return sign .. out:gsub("^,", "")
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

-- Colours -----------------------------------------------------------------

-- ltap's name hash, in [0, 1): the same name, the same colour, in every graph
local function name_hash(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + byte(s, i)) % 1000003 end
  return h / 1000003
end

local function chars(s)
  local ok, list = pcall(function()
    local t = {}
    for _, c in utf8.codes(s) do t[#t + 1] = c end
    return t
  end)
  if ok then return list end
  return {byte(s, 1, -1)}
end

-- --hash: a vector hash that weighs the first characters most, so similar
-- names get similar colours (flamegraph.pl's --hash); a "module`" prefix is
-- left out
local function vector_hash(cps)
  local vector, weight, maxv, mod = 0, 1, 1, 10
  for i = 1, #cps do
    vector = vector + (cps[i] % mod) / (mod - 1) * weight
    mod = mod + 1
    maxv = maxv + weight
    weight = weight * 0.70
    if mod > 12 then break end
  end
  return 1 - vector / maxv
end

local function hash_values(name)
  local s = name:gsub("^..-`", "", 1)
  local cps = chars(s)
  local rev = {}
  for i = #cps, 1, -1 do rev[#rev + 1] = cps[i] end
  return vector_hash(cps), vector_hash(rev)
end

local function rgb(r, g, b) return format("rgb(%d,%d,%d)", r, g, b) end

-- the colour of a frame in palette kind; v1, v2, v3 in [0, 1]
local function palette_color(kind, name, v1, v2, v3)
  if kind == "hot" then
    if find(name, "_[k]", -4, true) then kind = "orange" -- ltap: kernel frames apart
    else return rgb(205 + floor(50 * v3), floor(230 * v1), floor(55 * v2)) end
  elseif kind == "mem" then
    return rgb(0, 190 + floor(50 * v2), floor(210 * v1))
  elseif kind == "io" then
    local r = 80 + floor(60 * v1)
    return rgb(r, r, 190 + floor(55 * v2))
  elseif kind == "java" then
    if find(name, "_%[j%]$") then kind = "green"
    elseif find(name, "_%[i%]$") then kind = "aqua"
    elseif find(name, "^L?java/") or find(name, "^L?javax/") or find(name, "^L?jdk/") or find(name, "^L?net/")
      or find(name, "^L?org/") or find(name, "^L?com/") or find(name, "^L?io/") or find(name, "^L?sun/") then kind = "green"
    elseif find(name, ":::", 1, true) then kind = "green"
    elseif find(name, "::", 1, true) then kind = "yellow"
    elseif find(name, "_%[k%]$") then kind = "orange"
    else kind = "red" end
  elseif kind == "perl" then
    if find(name, "::", 1, true) then kind = "yellow"
    elseif find(name, "Perl", 1, true) or find(name, ".pl", 1, true) then kind = "green"
    elseif find(name, "_%[k%]$") then kind = "orange"
    else kind = "red" end
  elseif kind == "js" then
    if find(name, "_%[j%]$") then kind = find(name, "/", 1, true) and "green" or "aqua"
    elseif find(name, "::", 1, true) then kind = "yellow"
    elseif find(name, "/.*%.js") then kind = "green"
    elseif find(name, ":", 1, true) then kind = "aqua"
    elseif name == " " then kind = "green"
    elseif find(name, "_[k]", 1, true) then kind = "orange"
    else kind = "red" end
  elseif kind == "wakeup" then
    kind = "aqua"
  elseif kind == "chain" then
    kind = find(name, "_[w]", 1, true) and "aqua" or "blue"
  end
  if kind == "red" then
    local x = 50 + floor(80 * v1)
    return rgb(200 + floor(55 * v1), x, x)
  elseif kind == "green" then
    local x = 50 + floor(60 * v1)
    return rgb(x, 200 + floor(55 * v1), x)
  elseif kind == "blue" then
    local x = 80 + floor(60 * v1)
    return rgb(x, x, 205 + floor(50 * v1))
  elseif kind == "yellow" then
    local x = 175 + floor(55 * v1)
    return rgb(x, x, 50 + floor(20 * v1))
  elseif kind == "purple" then
    local x = 190 + floor(65 * v1)
    return rgb(x, 80 + floor(60 * v1), x)
  elseif kind == "aqua" then
    return rgb(50 + floor(60 * v1), 165 + floor(55 * v1), 165 + floor(55 * v1))
  elseif kind == "orange" then
    return rgb(190 + floor(65 * v1), 90 + floor(65 * v1), 0)
  end
  return "rgb(0,0,0)"
end

-- name -> colour, cached (a name recurs in many frames)
local function palette(c)
  local cache, kind, hash = {}, c.colors, c.hash
  return function(name)
    local col = cache[name]
    if col then return col end
    if name == "--" then col = "rgb(160,160,160)"
    elseif name == "-" then col = "rgb(200,200,200)"
    elseif hash then
      local v1, v2 = hash_values(name)
      col = palette_color(kind, name, v1, v2, v2)
    else
      local v = name_hash(name)
      col = palette_color(kind, name, v, v, v)
    end
    cache[name] = col
    return col
  end
end

-- a change on the scale of the largest one: red grew, blue shrank, white
-- none; the largest change is saturated (flamegraph.pl's differential rule)
local function diff_color(value, maxv, negate)
  if negate then value = -value end
  if value > 0 then
    local x = floor(210 * (maxv - value) / maxv)
    return rgb(255, x, x)
  elseif value < 0 then
    local x = floor(210 * (maxv + value) / maxv)
    return rgb(x, x, 255)
  end
  return "rgb(255,255,255)"
end

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
  if type(stacks.stacks) == "table" and type(stacks.counts) == "table" then
    if c.flamechart then
      for i, s in ipairs(stacks.stacks) do keys[i] = c.reverse and reversed(s, buf) or s end
      for i, n in ipairs(stacks.counts) do cnt[i] = n end
      if stacks.before then cnt0 = {}; for i, n in ipairs(stacks.before) do cnt0[i] = n end end
      return keys, cnt, cnt0
    end
    stacks, before = folded.merge(stacks)
  end
  local t, t0 = stacks, before
  if c.reverse then
    t, t0 = {}, before and {} or nil
    for s, n in pairs(stacks) do local r = reversed(s, buf); t[r] = (t[r] or 0) + n end
    if before then for s, n in pairs(before) do local r = reversed(s, buf); t0[r] = (t0[r] or 0) + n end end
  end
  for s in pairs(t) do keys[#keys + 1] = s end
  if t0 then for s in pairs(t0) do if t[s] == nil then keys[#keys + 1] = s end end end
  table.sort(keys)
  for i, s in ipairs(keys) do cnt[i] = t[s] or 0 end
  if t0 then cnt0 = {}; for i, s in ipairs(keys) do cnt0[i] = t0[s] or 0 end end
  return keys, cnt, cnt0
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

-- Merges neighbouring stacks into frames, as a flame graph draws them: a
-- frame is a name at a depth spanning the samples of consecutive stacks
-- that share the path to it. Frames narrower than minw samples are left
-- out. Returns the frame arrays (closing order: children before parents),
-- their number, the total, the deepest depth, the largest change of a
-- stack (differential input).
local function frames(keys, cnt, cnt0, minw)
  local F = {name = {}, depth = {}, x = {}, w = {}, delta = {}, before = {}, h = {}}
  local fname, fdepth, fx, fw, fdelta, fbefore, fh = F.name, F.depth, F.x, F.w, F.delta, F.before, F.h
  local n, dmax = 0, 0
  local prev, cur, pn = {}, {}, 0
  local st, st0, dl, hm = {}, {}, {}, {[0] = 0}
  local t, t0, maxdelta, rootdelta = 0, 0, 0, 0
  local function close(d, name)
    local w = t - st[d]
    if w >= minw and w > 0 then
      n = n + 1
      fname[n], fdepth[n], fx[n], fw[n], fdelta[n], fbefore[n], fh[n] = name, d, st[d], w, dl[d], t0 - st0[d], hm[d] - d
      if d > dmax then dmax = d end
      if hm[d] > hm[d - 1] then hm[d - 1] = hm[d] end
    end
  end
  for i = 1, #keys do
    local k = split(keys[i], cur)
    local same = 0
    while same < k and same < pn and cur[same + 1] == prev[same + 1] do same = same + 1 end
    for d = pn, same + 1, -1 do close(d, prev[d]) end
    for d = same + 1, k do st[d], st0[d], dl[d], hm[d] = t, t0, 0, d end
    local c = cnt[i]
    if cnt0 then
      local delta = c - cnt0[i]
      if k > 0 then dl[k] = dl[k] + delta else rootdelta = rootdelta + delta end
      if abs(delta) > maxdelta then maxdelta = abs(delta) end
      t0 = t0 + cnt0[i]
    end
    t = t + c
    prev, cur, pn = cur, prev, k
  end
  for d = pn, 1, -1 do close(d, prev[d]) end
  if t > 0 then
    n = n + 1
    fname[n], fdepth[n], fx[n], fw[n], fdelta[n], fbefore[n], fh[n] = "all", 0, 0, t, rootdelta, t0, hm[0]
  end
  return F, n, t, t0, dmax, maxdelta
end

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

-- The name shown: the annotation suffix is for colours only.
local function shown_name(name)
  if sub(name, -4, -4) == "_" and find(name, "_%[[kwij]%]$") then return sub(name, 1, -5) end
  return name
end

local function render(keys, cnt, cnt0, c)
  local total = 0
  for i = 1, #cnt do total = total + cnt[i] end
  local xpad, fs = 10, c.fontsize
  local wpt = total > 0 and (c.width - 2 * xpad) / total or 0
  local minw = c.minwidth_pct and total * c.minwidth / 100 or (wpt > 0 and c.minwidth / wpt or 0)
  local F, n, _, tb, dmax, maxdelta = frames(keys, cnt, cnt0, minw)

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

  local color = palette(c)
  local fill_of, info_of
  local countname = c.countname
  local function samples_text(w) return commas(format("%.0f", w)) end
  if cnt0 and c.diff == "inclusive" then
    local big = 0
    for i = 1, n do
      local d = F.w[i] / total - (tb > 0 and F.before[i] / tb or 0)
      if abs(d) > big then big = abs(d) end
    end
    fill_of = function(i)
      return diff_color(F.w[i] / total - (tb > 0 and F.before[i] / tb or 0), big > 0 and big or 1, c.negate)
    end
    info_of = function(i, name)
      local a, b = 100 * F.w[i] / total, tb > 0 and 100 * F.before[i] / tb or 0
      return format("%s (%s %s, %.2f%%; before %s, %.2f%%; %+.2f points)", name, samples_text(F.w[i]), countname, a,
        samples_text(F.before[i]), b, a - b)
    end
  elseif cnt0 then
    local big = max(1, maxdelta)
    fill_of = function(i) return diff_color(F.delta[i], big, c.negate) end
    info_of = function(i, name)
      local s = tonumber(format("%.0f", F.w[i]))
      local d = c.negate and -F.delta[i] or F.delta[i]
      local dp = format("%.2f", 100 * d / total)
      return format("%s (%s %s, %.2f%%; %s%s%%)", name, samples_text(F.w[i]), countname, 100 * s / total, d > 0 and "+" or "", dp)
    end
  else
    fill_of = function(i) return color(F.depth[i] == 0 and "" or F.name[i]) end
    info_of = function(i, name)
      local s = tonumber(format("%.0f", F.w[i]))
      return format("%s (%s %s, %.2f%%)", name, samples_text(F.w[i]), countname, 100 * s / total)
    end
  end
  local frame_info = info_of
  info_of = function(i, name)
    if F.depth[i] == 0 then return format("all (%s %s, 100%%)", samples_text(F.w[i]), countname) end
    return frame_info(i, name)
  end

  local out = {}
  local function w(s) out[#out + 1] = s end
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
  local fname, fdepth, fx, fw, fhh = F.name, F.depth, F.x, F.w, F.h
  local ty_off = 3 + (fh - 1) / 2
  for i = 1, n do
    local d = fdepth[i]
    local name = shown_name(fname[i])
    local rx1, rx2 = xpad + fx[i] * wpt, xpad + (fx[i] + fw[i]) * wpt
    local x1, x2 = tonumber(format("%.1f", rx1)), tonumber(format("%.1f", rx2))
    local y1
    if c.inverted then y1 = base + d * fh else y1 = base - (d + 1) * fh + 1 end
    local nchars = floor((rx2 - rx1) / charw)
    local label = ""
    if nchars >= 3 then label = #name > nchars and sub(name, 1, nchars - 2) .. ".." or name end
    local ename = xml(name)
    local fill = fill_of(i)
    local class = (cap >= 0 and d > cap) and ' class="hide"' or ((cap >= 0 and d == cap and fhh[i] > 0) and ' class="cut"' or "")
    w(format('<g%s data-name="%s" data-x="%s" data-w="%s" data-depth="%d"%s data-fill="%s"><title>%s</title>'
      .. '<rect x="%.1f" y="%d" width="%.1f" height="%.1f" fill="%s" rx="2" ry="2"/><text x="%.2f" y="%s">%s</text></g>',
      class, ename, num(fx[i]), num(fw[i]), d, cap >= 0 and format(' data-h="%d"', fhh[i]) or "", fill,
      xml(info_of(i, d == 0 and "all" or name)), x1, y1, x2 - x1, fh - 1, fill, x1 + 3, num(y1 + ty_off), xml(label)))
  end
  w('</g>')
  w(SCRIPT)
  w('</svg>')
  return concat(out, "\n") .. "\n", n
end

-- flamegraph.svg(stacks, opts) -> svg text, frames drawn. stacks: a folded
-- table or a stack list (two columns: a differential graph).
function M.svg(stacks, o)
  local c = options(o)
  local keys, cnt, cnt0 = arrange(stacks, nil, c)
  if c.colors == "chain" then chain_marks(keys) end
  return render(keys, cnt, cnt0, c)
end

local function write_file(path, text)
  if path == "-" then io.stdout:write(text); return end
  local f, err = io.open(path, "w")
  if not f then error("flamegraph: cannot write " .. tostring(path) .. ": " .. tostring(err), 3) end
  f:write(text)
  f:close()
end

function M.write(stacks, path, o)
  local text, n = M.svg(stacks, o)
  write_file(path, text)
  return n
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
function M.diff_svg(before, after, o)
  local c = options(o)
  if type(before.stacks) == "table" then before = folded.merge(before) end
  if type(after.stacks) == "table" then after = folded.merge(after) end
  if o == nil or o.normalize ~= false then before = normalized(before, after) end
  local keys, cnt, cnt0 = arrange(after, before, c)
  if c.colors == "chain" then chain_marks(keys) end
  return render(keys, cnt, cnt0, c)
end

function M.diff(before, after, path, o)
  local text, n = M.diff_svg(before, after, o)
  write_file(path, text)
  return n
end

return M

-- flamegraph.lua: interactive SVG flame graphs from folded stacks, no Perl.
--
--   local fg = require("ltap.flamegraph")
--   fg.write(stacks, "out.svg", {title = "CPU profile"})      -- stacks: {["comm;f1;f2"] = count}
--   fg.diff(before, after, "diff.svg")                        -- growth red, shrink blue
--   fg.read_folded(path_or_lines) -> stacks;  fg.folded(stacks) -> text
--
-- Frames are sized by samples, children sorted by name (so the output is
-- deterministic), kernel frames ("_[k]" suffix) coloured apart from user
-- ones. The SVG carries its own script: hover shows name, samples and
-- percent; a click zooms to a frame (its ancestors span the width), "Reset
-- Zoom" or a click on the background undoes it; "Search" highlights the
-- frames matching a pattern and shows their share. ltapSearch(re) and
-- ltapZoom(g) are also callable from a page that inlines the SVG.

local M = {}

local function xml(s)
  return (tostring(s):gsub("[&<>\"']", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;"}))
end

function M.read_folded(src)
  local stacks, lines = {}, nil
  if type(src) == "table" then
    lines = src
  else
    local f, err = io.open(src)
    if not f then error("flamegraph: cannot read " .. tostring(src) .. ": " .. tostring(err), 2) end
    lines = {}
    for l in f:lines() do lines[#lines + 1] = l end
    f:close()
  end
  for n, l in ipairs(lines) do
    if l:match("%S") then
      local stack, count = l:match("^(.-)%s+(%d+)%s*$")
      if not stack then error(string.format("flamegraph: line %d is not 'stack count': %s", n, l), 2) end
      stacks[stack] = (stacks[stack] or 0) + tonumber(count)
    end
  end
  return stacks
end

function M.folded(stacks)
  local keys = {}
  for k in pairs(stacks) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. " " .. stacks[k] end
  return table.concat(keys, "\n") .. (#keys > 0 and "\n" or "")
end

-- the tree: {name, value, self, children = {name -> node}}
local function build(stacks, other)
  local root = {name = "all", value = 0, children = {}, before = 0}
  local function add(stack, n, field)
    local node = root
    node[field] = node[field] + n
    for frame in stack:gmatch("[^;]+") do
      local c = node.children[frame]
      if not c then c = {name = frame, value = 0, before = 0, children = {}}; node.children[frame] = c end
      c[field] = c[field] + n
      node = c
    end
  end
  for stack, n in pairs(stacks) do add(stack, n, "value") end
  if other then for stack, n in pairs(other) do add(stack, n, "before") end end
  return root
end

local function sorted_children(node)
  local list = {}
  for _, c in pairs(node.children) do list[#list + 1] = c end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

local function hash(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 1000003 end
  return h / 1000003
end

local function color(name, kernel)
  local v = hash(name)
  if kernel then return string.format("rgb(%d,%d,%d)", 200 + math.floor(55 * v), 140 + math.floor(60 * v), 40) end
  return string.format("rgb(%d,%d,%d)", 225 + math.floor(30 * v), math.floor(80 + 150 * v), math.floor(40 * v))
end

-- growth red, shrink blue, white for no change; share = fraction of the total
local function diff_color(after_share, before_share)
  local d = after_share - before_share
  local k = math.min(1, math.abs(d) * 5)
  local c = math.floor(255 - 200 * k)
  if d > 0 then return string.format("rgb(255,%d,%d)", c, c) end
  if d < 0 then return string.format("rgb(%d,%d,255)", c, c) end
  return "rgb(240,240,240)"
end

local SCRIPT = [[
<script type="text/ecmascript"><![CDATA[
(function () {
  var svg = document.currentScript ? document.currentScript.closest("svg") : document.querySelector("svg.ltap-flame");
  if (!svg) svg = document.querySelector("svg.ltap-flame");
  var W = +svg.getAttribute("data-width"), PAD = 10, TOTAL = +svg.getAttribute("data-total");
  var frames = Array.prototype.slice.call(svg.querySelectorAll("g.f"));
  function px(x) { return PAD + x * (W - 2 * PAD) / TOTAL; }
  function place(g, x0, span) {
    var x = +g.getAttribute("data-x"), w = +g.getAttribute("data-w"), r = g.querySelector("rect"), t = g.querySelector("text");
    var nx = PAD + (x - x0) * (W - 2 * PAD) / span, nw = w * (W - 2 * PAD) / span;
    r.setAttribute("x", nx.toFixed(2)); r.setAttribute("width", nw.toFixed(2));
    t.setAttribute("x", (nx + 3).toFixed(2));
    var name = g.getAttribute("data-name"), fit = Math.floor((nw - 6) / 7);
    t.textContent = fit < 3 ? "" : (name.length > fit ? name.slice(0, fit - 2) + ".." : name);
  }
  window.ltapZoom = function (g) {
    var x0 = +g.getAttribute("data-x"), w0 = +g.getAttribute("data-w"), d0 = +g.getAttribute("data-depth");
    frames.forEach(function (f) {
      var x = +f.getAttribute("data-x"), w = +f.getAttribute("data-w"), d = +f.getAttribute("data-depth");
      if (d < d0 && x <= x0 && x + w >= x0 + w0) {
        f.style.display = ""; f.setAttribute("data-x", x); place(f, x0, w0);
        var r = f.querySelector("rect"); r.setAttribute("x", PAD); r.setAttribute("width", W - 2 * PAD);
        f.style.opacity = "0.6";
      } else if (x >= x0 && x + w <= x0 + w0 && d >= d0) {
        f.style.display = ""; f.style.opacity = ""; place(f, x0, w0);
      } else {
        f.style.display = "none";
      }
    });
    svg.querySelector("#reset").style.opacity = "1";
  };
  window.ltapReset = function () {
    frames.forEach(function (f) { f.style.display = ""; f.style.opacity = ""; place(f, 0, TOTAL); });
    svg.querySelector("#reset").style.opacity = "0.2";
  };
  window.ltapSearch = function (pattern) {
    var re = new RegExp(pattern), matched = 0, covered = [];
    frames.forEach(function (f) {
      var r = f.querySelector("rect");
      if (re.test(f.getAttribute("data-name"))) {
        r.setAttribute("fill", "rgb(200,0,200)");
        var x = +f.getAttribute("data-x"), w = +f.getAttribute("data-w");
        if (!covered.some(function (c) { return x >= c[0] && x + w <= c[1]; })) { covered.push([x, x + w]); matched += w; }
      } else {
        r.setAttribute("fill", f.getAttribute("data-fill"));
      }
    });
    var m = svg.querySelector("#matched");
    m.textContent = "Matched: " + (100 * matched / TOTAL).toFixed(1) + "%";
    return matched;
  };
  var details = svg.querySelector("#details");
  frames.forEach(function (f) {
    f.addEventListener("click", function (e) { e.stopPropagation(); window.ltapZoom(f); });
    f.addEventListener("mouseover", function () { details.textContent = f.querySelector("title").textContent; });
    f.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  svg.querySelector("#reset").addEventListener("click", function (e) { e.stopPropagation(); window.ltapReset(); });
  svg.querySelector("#search").addEventListener("click", function (e) {
    e.stopPropagation();
    var p = window.prompt("Search for (regular expression):", "");
    if (p) window.ltapSearch(p);
  });
  svg.querySelector("#background").addEventListener("click", function () { window.ltapReset(); });
})();
]] .. "]]>" .. [[</script>
]]

local function render(root, o, fill_of, tip_of)
  local width, fh = o.width or 1200, o.frame_height or 16
  local total = root.value
  local minw = o.minwidth or 0.1 -- px
  local pad = 10
  local depth_max = 0
  local rects = {}
  local function walk(node, x, depth)
    local w_px = total > 0 and node.value * (width - 2 * pad) / total or 0
    if w_px < minw then return end
    if depth > depth_max then depth_max = depth end
    rects[#rects + 1] = {node = node, x = x, depth = depth}
    local cx = x
    for _, c in ipairs(sorted_children(node)) do
      walk(c, cx, depth + 1)
      cx = cx + c.value
    end
  end
  if total > 0 then walk(root, 0, 0) end
  local height = (depth_max + 1) * fh + 90
  local out = {}
  local function w(s) out[#out + 1] = s end
  w('<?xml version="1.0" standalone="no"?>')
  w(string.format('<svg class="ltap-flame" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" xmlns="http://www.w3.org/2000/svg" data-width="%d" data-total="%d">',
    width, height, width, height, width, math.max(total, 1)))
  w(string.format('<rect id="background" x="0" y="0" width="%d" height="%d" fill="rgb(250,250,240)"/>', width, height))
  w(string.format('<text x="%d" y="24" text-anchor="middle" font-family="Verdana" font-size="17">%s</text>', width // 2, xml(o.title or "Flame Graph")))
  w('<text id="reset" x="10" y="24" font-family="Verdana" font-size="12" style="opacity:0.2;cursor:pointer">Reset Zoom</text>')
  w(string.format('<text id="search" x="%d" y="24" text-anchor="end" font-family="Verdana" font-size="12" style="cursor:pointer">Search</text>', width - 10))
  w(string.format('<text id="matched" x="%d" y="%d" text-anchor="end" font-family="Verdana" font-size="12"> </text>', width - 10, height - 8))
  w(string.format('<text id="details" x="10" y="%d" font-family="Verdana" font-size="12"> </text>', height - 8))
  w('<g id="frames" font-family="Verdana" font-size="12">')
  for _, r in ipairs(rects) do
    local node = r.node
    local x_px = pad + r.x * (width - 2 * pad) / total
    local w_px = node.value * (width - 2 * pad) / total
    local y = height - 40 - (r.depth + 1) * fh
    local fill = fill_of(node, r.depth)
    local fit = math.floor((w_px - 6) / 7)
    local label = fit < 3 and "" or (#node.name > fit and node.name:sub(1, fit - 2) .. ".." or node.name)
    w(string.format('<g class="f" data-name="%s" data-x="%d" data-w="%d" data-depth="%d" data-fill="%s"><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2"/><text x="%.2f" y="%d">%s</text></g>',
      xml(node.name), r.x, node.value, r.depth, fill, xml(tip_of(node)), x_px, y, w_px, fh - 1, fill, x_px + 3, y + fh - 4, xml(label)))
  end
  w('</g>')
  w(SCRIPT)
  w('</svg>')
  return table.concat(out, "\n") .. "\n", #rects
end

local function is_kernel(name, o)
  if o.is_kernel then return o.is_kernel(name) end
  return name:sub(-4) == "_[k]"
end

local svg_options = {title = "string", width = "integer", frame_height = "integer", minwidth = "number",
  is_kernel = "function"}

-- flamegraph.svg(stacks, opts) -> svg text, frame count
function M.svg(stacks, o)
  ltap.check_options(o, svg_options, "flamegraph")
  o = o or {}
  local root = build(stacks)
  local total = root.value
  return render(root, o,
    function(node, depth) return depth == 0 and "rgb(200,200,200)" or color(node.name, is_kernel(node.name, o)) end,
    function(node) return string.format("%s (%d samples, %.2f%%)", node.name, node.value, total > 0 and 100 * node.value / total or 0) end)
end

local function write_file(path, text)
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

-- flamegraph.diff_svg(before, after, opts): frames sized by `after`, coloured
-- by the change of their share of all samples (normalized, as difffolded -n)
function M.diff_svg(before, after, o)
  ltap.check_options(o, svg_options, "flamegraph")
  o = o or {}
  local root = build(after, before)
  local ta, tb = root.value, root.before
  return render(root, o,
    function(node) return diff_color(ta > 0 and node.value / ta or 0, tb > 0 and node.before / tb or 0) end,
    function(node)
      local a, b = ta > 0 and 100 * node.value / ta or 0, tb > 0 and 100 * node.before / tb or 0
      return string.format("%s (%d samples, %.2f%%; before %d, %.2f%%; %+.2f points)", node.name, node.value, a, node.before, b, a - b)
    end)
end

function M.diff(before, after, path, o)
  local text, n = M.diff_svg(before, after, o)
  write_file(path, text)
  return n
end

return M

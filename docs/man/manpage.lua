-- manpage.lua: a pandoc Lua filter that turns docs/*.md into a manual page
-- (docs/CMakeLists.txt runs it), so the page and the docs have one source.
--
-- Metadata (pandoc -M):
--   page     this page, "ltap(1)"
--   name     the NAME line, "ltap - a Linux tracing host with Lua 5.4 scripts"
--   docdir   where the docs are installed, for links to docs not in a page
--   xref     one "FILE.md=PAGE(N)" per doc that is part of a manual page
--
-- The docs' shape: each file starts with a title (level 1) and an
-- introduction, then sections (level 2) with subsections (level 3). In the
-- page, the first file's title goes (NAME replaces it), its introduction
-- becomes DESCRIPTION, its sections the page's sections; a further file
-- becomes one section, its sections subsections. A "Synopsis" section moves
-- right after NAME, as man pages have it.

local page, docdir
local xref = {}       -- doc file -> manual page it is part of

local function meta_string(v)
  return v and pandoc.utils.stringify(v) or nil
end

local function read_meta(m)
  page = meta_string(m.page) or error("manpage.lua: -M page=NAME(N) is needed")
  docdir = meta_string(m.docdir) or "docs"
  local list = m.xref
  if list and pandoc.utils.type(list) ~= "List" then list = {list} end
  for _, v in ipairs(list or {}) do
    local file, p = pandoc.utils.stringify(v):match("^(.-)=(.*)$")
    if file then xref[file] = p end
  end
end

-- A link to another doc: in this page, its text; in another page, its text
-- and that page (unless the text names it); else its text and the doc's
-- file name. The docs' map (README.md) is the directory they are installed in.
-- Links out of the docs (http:) keep pandoc's "text (url)".
local function link(l)
  local file = l.target:match("^([%w%-_.]+%.md)")
  if not file and not l.target:match("^#") then return nil end
  if file == "README.md" then
    return pandoc.Str(docdir)   -- the map of the docs: where they are
  end
  local text = pandoc.utils.stringify(l.content)
  local other = file and xref[file]
  local inl = l.content
  if file and other ~= page then
    if other then
      if not text:find(other, 1, true) then
        inl:extend({pandoc.Space(), pandoc.Str("(" .. other .. ")")})
      end
    else
      inl:extend({pandoc.Space(), pandoc.RawInline("man", "\\%(" .. file .. ")")})
    end
  end
  return inl
end

-- A table of names and long explanations (the Lua API's functions) is a
-- list of tagged paragraphs (.TP), as man pages have them: tbl cannot break
-- a cell across pages ("table text block will not fit on one page").
-- Other tables go to tbl with column widths that fit an 80-column terminal
-- after the page's indent (as shares of pandoc's 72 columns; wider warns
-- "table wider than line width"): the first column as wide as its longest
-- word, the others share the rest. Their cells are set ragged (.ad l):
-- justified, a narrow cell with a long word warns "cannot adjust line".
local LONG_CELL = 150

local function rows_of(t)
  local rows = pandoc.List()
  for _, body in ipairs(t.bodies) do rows:extend(body.body) end
  return rows
end

local function table_to_man(t)
  local n, longest, long_cells = #t.colspecs, 0, false
  local rows = rows_of(t)
  for _, row in ipairs(rows) do
    for j, cell in ipairs(row.cells) do
      local text = pandoc.utils.stringify(cell.contents)
      if j == 1 then
        for word in text:gmatch("%S+") do longest = math.max(longest, utf8.len(word) or #word) end
      elseif #text > LONG_CELL then
        long_cells = true
      end
    end
  end
  if n == 2 and long_cells then
    local items = pandoc.List()
    for _, row in ipairs(rows) do
      items:insert({pandoc.utils.blocks_to_inlines(row.cells[1].contents), {row.cells[2].contents}})
    end
    return pandoc.DefinitionList(items)
  end
  for _, row in ipairs(t.head.rows) do
    for word in pandoc.utils.stringify(row.cells[1].contents):gmatch("%S+") do
      longest = math.max(longest, utf8.len(word) or #word)
    end
  end
  local first = math.min(0.45, math.max(0.2, (longest + 1) / 72))
  for i, c in ipairs(t.colspecs) do
    t.colspecs[i] = {c[1], i == 1 and first or (0.85 - first) / (n - 1)}
  end
  return {pandoc.RawBlock("man", ".ad l"), t, pandoc.RawBlock("man", ".ad b")}
end

local function upper_header(level, inlines)
  if level == 1 then
    return pandoc.Header(1, pandoc.Str(pandoc.text.upper(pandoc.utils.stringify(inlines))))
  end
  return pandoc.Header(level, inlines)
end

local function shape(doc)
  local out, synopsis = pandoc.List(), nil
  local files, shift = 0, 0
  local cur            -- the list blocks go to: out, or the synopsis
  out:insert(pandoc.RawBlock("man", ".nh"))   -- no hyphens in names of files, options, functions
  out:insert(pandoc.Header(1, pandoc.Str("NAME")))
  out:insert(pandoc.Para(pandoc.Str(meta_string(doc.meta.name) or page)))
  cur = out
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level == 1 then
      files = files + 1
      cur = out
      if files == 1 then
        shift = 1            -- the first file: ## is .SH
        out:insert(pandoc.Header(1, pandoc.Str("DESCRIPTION")))
      else
        shift = 0            -- a further file: # is .SH, ## .SS
        out:insert(upper_header(1, b.content))
      end
    elseif b.t == "Header" then
      local level = math.max(1, b.level - shift)
      local h = upper_header(level, b.content)
      if level == 1 and pandoc.utils.stringify(b.content) == "Synopsis" then
        synopsis = pandoc.List({h})
        cur = synopsis
      else
        if level == 1 then cur = out end
        cur:insert(h)
      end
    else
      cur:insert(b)
    end
  end
  if synopsis then
    for i = #synopsis, 1, -1 do out:insert(4, synopsis[i]) end
  end
  -- an empty DESCRIPTION (a first file without an introduction) goes
  for i, b in ipairs(out) do
    if b.t == "Header" and pandoc.utils.stringify(b) == "DESCRIPTION"
       and (not out[i + 1] or out[i + 1].t == "Header") then
      out:remove(i)
      break
    end
  end
  doc.blocks = out
  return doc
end

-- GitHub reads \| in a table's code span as |; pandoc keeps the backslash
local function code(c)
  c.text = c.text:gsub("\\|", "|")
  return c
end

return {
  {Meta = function(m) read_meta(m) end},
  {Link = link, Table = table_to_man, Code = code},
  {Pandoc = shape},
}

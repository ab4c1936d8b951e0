-- report.lua: printing aggregates and tables, as text or as JSON documents.
--
--   report(x, [opts])    prints a stats aggregate or a plain table
--   s:sorted([by], [order], [n]), s:print([opts]), s:print_hist(key...)
--
-- With `--format json` nothing is printed as it comes: every report(),
-- printf() and print() of one timer run, begin or finish hook goes into one
-- JSON document, written as one line when that callback returns (C calls
-- ltap.report_flush), so `jq` reads a run as a stream of reports.

local fmt = require("ltap.format")
local json_mode = ltap.format == "json"
local json = json_mode and require("dkjson") or nil

local M = {}

----------------------------------------------------------------- ordering

local function kind_rank(v)
  local t = type(v)
  return t == "number" and 1 or t == "string" and 2 or t == "boolean" and 3 or t == "table" and 4 or 5
end

-- The one order of keys (sorted(), reports, derive): numbers before strings
-- before booleans before tuples, each by value, tuples part by part.
local function key_less(a, b)
  local ra, rb = kind_rank(a), kind_rank(b)
  if ra ~= rb then return ra < rb end
  if ra <= 2 then return a < b end
  if ra == 4 then
    for i = 1, math.max(#a, #b) do
      if a[i] == nil then return true end
      if b[i] == nil then return false end
      if a[i] ~= b[i] then return key_less(a[i], b[i]) end
    end
    return false
  end
  return tostring(a) < tostring(b)
end
M.key_less = key_less

local figures = {count = true, sum = true, min = true, max = true, avg = true, var = true, stddev = true}

-- s:sorted([by], [order], [n]) is C (bindings/statsrows.c): a bounded heap
-- for the top n, no Lua table per key
local function stats_sorted(s, by, order, n)
  return s:sorted(by, order, n)
end

local stats_meta = getmetatable(stats())
local function is_stats(x)
  return getmetatable(x) == stats_meta
end
M.is_stats = is_stats

---------------------------------------------------------------- the document

local doc, last_flush, seq = nil, nil, 0

local function current_doc()
  if not doc then doc = {tables = {}} end
  return doc
end

local function text_out(s)
  if json_mode then
    local d = current_doc()
    d.text = (d.text or "") .. s
  else
    io.stdout:write(s)
  end
end
M.write = text_out

local key_order = {"ltap", "version", "commit", "report", "time", "interval", "lost", "lost_per_cpu", "tables", "text",
  "type", "title", "hist", "keys", "value", "dropped", "rows", "key", "count", "sum", "min", "max", "avg",
  "var", "stddev", "lo", "hi", "lo_open", "hi_open"}

-- Called from C after each timer callback and each begin/finish hook.
function ltap.report_flush()
  if not json_mode then return end
  local now = ltap.now()
  local d = doc
  doc = nil
  if d and (#d.tables > 0 or d.text) then
    seq = seq + 1
    d.report = seq
    -- the first document says which ltap wrote the stream
    if seq == 1 then d.ltap = {version = ltap.version, commit = ltap.commit} end
    d.time = now
    d.interval = now - (last_flush or ltap.start_time())
    local lost, per_cpu = ltap.lost()
    d.lost = lost
    d.lost_per_cpu = {}
    for cpu, n in pairs(per_cpu) do d.lost_per_cpu[tostring(cpu)] = n end
    if #d.tables == 0 then d.tables = setmetatable({}, {__jsontype = "array"}) end
    io.stdout:write(json.encode(d, {keyorder = key_order}), "\n")
  end
  last_flush = now
end

----------------------------------------------------------------- text layout

local function cell(v)
  if math.type(v) == "float" then
    if v ~= v then return "nan" end
    return string.format("%.2f", v)
  end
  return tostring(v)
end

local function key_text(k)
  if type(k) == "table" then
    local parts = {}
    for i = 1, #k do parts[i] = tostring(k[i]) end
    return table.concat(parts, ", ")
  end
  return tostring(k)
end

-- rows of cells, the first ncols_left columns left-aligned, the rest right
local function print_grid(rows, nleft)
  local w = {}
  for _, r in ipairs(rows) do
    for c, v in ipairs(r) do w[c] = math.max(w[c] or 0, #v) end
  end
  for _, r in ipairs(rows) do
    local out = {}
    for c, v in ipairs(r) do
      if c <= nleft then
        out[c] = c == #r and v or v .. string.rep(" ", w[c] - #v)
      else
        out[c] = string.rep(" ", w[c] - #v) .. v
      end
    end
    text_out(table.concat(out, "  ") .. "\n")
  end
end

-- arity 0: the keyless aggregate of s:add(value)
local function key_parts(k, arity)
  if arity > 1 then return k end
  if arity == 0 then return {} end
  return {k}
end

local function key_names(opts, arity)
  local names = {}
  for i = 1, arity do
    names[i] = opts.keys and opts.keys[i] or (arity > 1 and "key" .. i or "key")
  end
  return names
end

local function bucket_label(b)
  local lo, hi = fmt.si(b.lo), fmt.si(b.hi)
  if b.lo_open then return "(..., " .. hi .. ")" end
  if b.hi_open then return "[" .. lo .. ", ...)" end
  if math.type(b.lo) == "integer" and b.hi == b.lo + 1 then return "[" .. lo .. "]" end
  return "[" .. lo .. ", " .. hi .. ")"
end

local BAR = 52

-- bucket lines as bpftrace's hist(): range, count, bar scaled to the largest
local function print_buckets(buckets)
  local labels, lw, cw, top = {}, 0, 1, 0
  for i, b in ipairs(buckets) do
    labels[i] = bucket_label(b)
    lw = math.max(lw, #labels[i])
    cw = math.max(cw, #tostring(b.count))
    top = math.max(top, b.count)
  end
  for i, b in ipairs(buckets) do
    local n = top > 0 and b.count * BAR // top or 0
    text_out(string.format("%-" .. lw .. "s %" .. math.max(cw, 8) .. "d |%s%s|\n", labels[i], b.count,
      string.rep("@", n), string.rep(" ", BAR - n)))
  end
end

------------------------------------------------------------------- report()

local function stats_rows_json(s, opts, info)
  local rows = {}
  for k, st in stats_sorted(s, opts.by, opts.order, opts.top) do
    local row = {key = info.arity > 0 and k or nil}
    for f in pairs(figures) do row[f] = st[f] end
    if info.hist ~= "none" then
      local h = s:hist(table.unpack(key_parts(k, info.arity)))
      row.hist = setmetatable(h, {__jsontype = "array"})
    end
    rows[#rows + 1] = row
  end
  return setmetatable(rows, {__jsontype = "array"})
end

local function report_stats(s, opts)
  local info = s:info()
  if json_mode then
    table.insert(current_doc().tables, {type = "stats", title = opts.title, hist = info.hist ~= "none" and info.hist or nil,
      keys = key_names(opts, info.arity), dropped = s:dropped(), rows = stats_rows_json(s, opts, info)})
    return
  end
  if opts.title then text_out(opts.title .. "\n") end
  if opts.row then
    if opts.header then text_out(opts.header .. "\n") end
    for k, st in stats_sorted(s, opts.by, opts.order, opts.top) do text_out(opts.row(k, st) .. "\n") end
  elseif info.hist ~= "none" and opts.hist ~= false then
    local first = true
    for k, st in stats_sorted(s, opts.by, opts.order, opts.top) do
      if not first then text_out("\n") end
      first = false
      local label = info.arity > 0 and "@[" .. key_text(k) .. "]" or "@"
      text_out(label .. ": count " .. st.count .. ", avg " .. cell(st.avg) ..
        ", min " .. cell(st.min) .. ", max " .. cell(st.max) .. "\n")
      print_buckets(s:hist(table.unpack(key_parts(k, info.arity))))
    end
  else
    -- the aligned table, written by C as it formats each row
    s:write(io.stdout, opts)
  end
  if s:dropped() > 0 then text_out(string.format("(%d values dropped: more than %d keys)\n", s:dropped(), info.max_keys)) end
end

local function report_table(t, opts)
  local how = opts.order or "desc"
  if json_mode then
    local rows = {}
    for k, v in sorted(t, how, opts.top) do rows[#rows + 1] = {key = k, value = v} end
    table.insert(current_doc().tables, {type = "table", title = opts.title,
      keys = {opts.keys and opts.keys[1] or "key"}, value = opts.value or "value",
      rows = setmetatable(rows, {__jsontype = "array"})})
    return
  end
  if opts.title then text_out(opts.title .. "\n") end
  if opts.row then
    if opts.header then text_out(opts.header .. "\n") end
    for k, v in sorted(t, how, opts.top) do text_out(opts.row(k, v) .. "\n") end
    return
  end
  local rows = {{opts.keys and opts.keys[1] or "key", opts.value or "value"}}
  for k, v in sorted(t, how, opts.top) do rows[#rows + 1] = {key_text(k), cell(v)} end
  print_grid(rows, 1)
end

-- report(x, [opts]): x a stats aggregate or a table of key -> number.
-- opts: title; top (N rows); by (a figure: count, sum, ...) and order
-- ("desc"/"asc") for stats, order ("desc", "asc", "key", "key-desc") for
-- tables; keys (column names of the key parts); fields (stats figures shown);
-- value (a table's value column name); hist = false (stats as a table even
-- with a histogram); header + row(key, value) for a layout of one's own.
local report_options = {title = "string", top = "integer", by = "string", order = "string", keys = "table",
  fields = "table", value = "string", hist = "boolean", header = "string", row = "function"}

function report(x, opts)
  ltap.check_options(opts, report_options, "report")
  opts = opts or {}
  if is_stats(x) then
    report_stats(x, opts)
  elseif type(x) == "table" then
    report_table(x, opts)
  else
    error("report: expected a stats aggregate or a table, got " .. type(x), 2)
  end
end

-------------------------------------------------------- stats methods, hooks

local methods = stats_meta.__index
methods.print = function(s, opts) report(s, opts) end
-- s:print_hist(key...): the histogram of one key
methods.print_hist = function(s, ...)
  local h = s:hist(...)
  if json_mode then
    table.insert(current_doc().tables, {type = "hist", key = {...}, rows = setmetatable(h or {}, {__jsontype = "array"})})
  elseif h then
    print_buckets(h)
  end
end

local plain_sorted = sorted
function sorted(t, ...)
  if is_stats(t) then return stats_sorted(t, ...) end
  return plain_sorted(t, ...)
end

if json_mode then
  function printf(f, ...) text_out(string.format(f, ...)) end
  function print(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    text_out(table.concat(parts, "\t", 1, parts.n) .. "\n")
  end
end

return M

-- overhead.lua: the table of `perf report --no-children --sort comm,dso,symbol`:
-- the share of samples per command, shared object and symbol of the frame
-- where each sample (or event) happened, "[k]" for kernel, "[.]" for user.
local M = {}

function M.new() return { total = 0, rows = {} } end

-- Counts n samples of comm whose leaf frame is f (a frame table of
-- e:frame(1) or counts:leaves(); nil when the stack is empty).
function M.add_frame(acc, comm, f, n)
  local dso, sym, mark = "[unknown]", "[unknown]", "[.]"
  if f then
    if f.module then dso = f.module:match("[^/]*$") end
    sym = f.sym or string.format("0x%016x", f.addr)
    if f.kernel then mark = "[k]" end
  end
  local key = comm .. "\0" .. dso .. "\0" .. mark .. " " .. sym
  acc.rows[key] = (acc.rows[key] or 0) + n
  acc.total = acc.total + n
end

-- Counts one sample of event e, by its leaf frame.
function M.add(acc, e)
  M.add_frame(acc, e.comm, e:frame(1), 1)
end

-- Counts the samples of a stack count (ltap.stackcount), by leaf frame:
-- the rows add_frame makes of counts:leaves(), made in C (counts:rows).
function M.add_counts(acc, counts)
  acc.total = acc.total + counts:rows(acc.rows)
end

-- Whether row (count a, key ka) comes before (count b, key kb): more
-- samples first, then by command, shared object and symbol.
local function before(a, ka, b, kb)
  if a ~= b then return a > b end
  return ka < kb
end

-- Prints the report, largest first (at most n rows), as perf aligns it
-- (columns as wide as the widest of all rows). Only the rows printed are
-- kept in order: a system-wide profile has thousands.
function M.print(acc, n, out)
  out = out or io.stdout
  local find, max = string.find, math.max
  local wc, wd = #"Command", #"Shared Object"
  local top, keys = {}, {}
  for key, count in pairs(acc.rows) do
    local i = find(key, "\0", 1, true)
    local j = find(key, "\0", i + 1, true)
    wc, wd = max(wc, i - 1), max(wd, j - i - 1)
    local k = #top
    if not n then
      top[k + 1], keys[k + 1] = count, key
    elseif k < n or before(count, key, top[k], keys[k]) then
      while k > 0 and before(count, key, top[k], keys[k]) do
        top[k + 1], keys[k + 1] = top[k], keys[k]
        k = k - 1
      end
      top[k + 1], keys[k + 1] = count, key
      if #top > n then top[#top], keys[#keys] = nil, nil end
    end
  end
  if not n then -- every row: sorted once
    local order = {}
    for i = 1, #keys do order[i] = i end
    table.sort(order, function(a, b) return before(top[a], keys[a], top[b], keys[b]) end)
    local t, k = {}, {}
    for i, j in ipairs(order) do t[i], k[i] = top[j], keys[j] end
    top, keys = t, k
  end
  out:write(string.format("# Samples: %d\n#\n", acc.total))
  out:write(string.format("# Overhead  %-" .. wc .. "s  %-" .. wd .. "s  Symbol\n", "Command", "Shared Object"))
  out:write(string.format("# ........  %s  %s  ......................\n#\n", ("."):rep(wc), ("."):rep(wd)))
  for i, key in ipairs(keys) do
    local comm, dso, sym = key:match("^(.-)%z(.-)%z(.*)$")
    out:write(string.format("%9.2f%%  %-" .. wc .. "s  %-" .. wd .. "s  %s\n",
      100 * top[i] / acc.total, comm, dso, sym))
  end
end

return M

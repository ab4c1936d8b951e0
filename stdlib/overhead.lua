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

-- Counts the samples of a stack count (ltap.stackcount), by leaf frame.
function M.add_counts(acc, counts)
  for _, l in ipairs(counts:leaves()) do M.add_frame(acc, l.comm, l.frame, l.count) end
end

-- Prints the report, largest first (at most n rows), as perf aligns it.
function M.print(acc, n, out)
  out = out or io.stdout
  local rows = {}
  local wc, wd = #"Command", #"Shared Object"
  for key, count in pairs(acc.rows) do
    local comm, dso, sym = key:match("^(.-)%z(.-)%z(.*)$")
    rows[#rows + 1] = { comm = comm, dso = dso, sym = sym, count = count }
    wc, wd = math.max(wc, #comm), math.max(wd, #dso)
  end
  table.sort(rows, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    if a.comm ~= b.comm then return a.comm < b.comm end
    if a.dso ~= b.dso then return a.dso < b.dso end
    return a.sym < b.sym
  end)
  out:write(string.format("# Samples: %d\n#\n", acc.total))
  out:write(string.format("# Overhead  %-" .. wc .. "s  %-" .. wd .. "s  Symbol\n", "Command", "Shared Object"))
  out:write(string.format("# ........  %s  %s  ......................\n#\n", ("."):rep(wc), ("."):rep(wd)))
  for i, r in ipairs(rows) do
    if n and i > n then break end
    out:write(string.format("%9.2f%%  %-" .. wc .. "s  %-" .. wd .. "s  %s\n",
      100 * r.count / acc.total, r.comm, r.dso, r.sym))
  end
end

return M

-- name: demo
-- summary: ltap.getopt, the one parser of bundled scripts' command lines
-- usage: ltap demo [-i INTERVAL] [-n TOP] [-L] ARGS...
--        (a second usage line)
-- example:
--   first line of the example
--
--   after a blank line
--
-- Prose after the example is not part of -h.
local getopt = require("ltap.getopt")

local order = {}
local decl = {
  {"-i, --interval", "duration", "print the tables every INTERVAL", default = "5s", arg = "INTERVAL"},
  {"-n, --top", "integer", "the N first rows", default = 10, min = 1},
  {"-L, --latency", "flag", "also the latency"},
  {"-r", "number", "a ratio", min = 0, max = 1},
  {"--from", "string", "the input's kind", choices = {"perf", "folded"}},
  {"-b, --buffer", "size", "a buffer"},
  {"-e, --event", "string", "an event, in order", many = true,
    each = function(v) order[#order + 1] = "e:" .. v end},
  {"-f", "string", "a filter of the -e before it",
    each = function(v)
      if #order == 0 then return nil, "-f " .. v .. " follows no -e" end
      order[#order] = order[#order] .. "/" .. v
      return true
    end},
  {"--no-normalize", "flag", "a long name with a dash"},
  targets = true,
}

local function show(o, args)
  local keys = {}
  for k in pairs(o) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = o[k]
    parts[#parts + 1] = k .. "=" .. (type(v) == "table" and "{" .. table.concat(v, ",") .. "}" or tostring(v))
  end
  return table.concat(parts, " ") .. " | " .. table.concat(args, " ")
end

local function try(...)
  local argv = {[0] = "demo", ...}
  order = {}
  local ok, o, args = pcall(getopt, decl, argv)
  print(table.concat(argv, " ", 1) .. "  ->  " .. (ok and show(o, args) or tostring(o)))
  if ok and #order > 0 then print("  order: " .. table.concat(order, " ")) end
end

-- what is accepted, typed
try()
try("-n5", "-La", "x", "--from=perf", "-e", "a", "-f", "pid == 7", "-e", "b", "--", "-y", "--top")
try("--top", "3", "-i", "250ms", "-b", "4K", "-r", "0.5", "--no-normalize", "-", "-5")
try("--interval=2m", "--buffer=1G", "-i", "7")
-- the mistakes, each a usage error of one line
try("--frob")
try("-x")
try("-Lx")
try("-n")
try("--top")
try("-n", "0")
try("-n", "1.5")
try("-r", "2")
try("-i", "5parsecs")
try("-b", "3X")
try("--from", "pdf")
try("--latency=3")
try("-f", "x")
-- the target options: ltap's own messages (targetopt.c)
try("-p", "0")
try("-p", "4294967297")
try("-d", "0")
try("-c", "/bin/echo 'a")
-- a script's own usage error
print(select(2, pcall(getopt.error, "START and END are needed", {[0] = "demo"})))
print(select(2, pcall(getopt.value, "duration", "soon", "INTERVAL")))
print(getopt.value("size", "8M", "SIZE"))
-- mistakes of the declaration are the script's, at its line
local function decl_error(d)
  local ok, err = pcall(function() local o = getopt(d, {[0] = "demo"}) return o end)
  print((tostring(err):gsub("^.*/", "")))
end
decl_error({{"-x", "colour", "a help"}})
decl_error({{"-x", "flag", "a help"}, {"--ex, -x", "flag", "again"}})
decl_error({{"-h", "flag", "help of my own"}})
decl_error({{"x", "flag", "a name without a dash"}})
decl_error({{"-n", "integer", "a bad default", default = "many"}})
decl_error({targets = {"-q"}})
-- two target options together: checked once all are given
try("-p", "5", "-c", "true")
-- and -h prints the header and the declaration, then ends the load (exit 0)
try("-h")
print("not reached")

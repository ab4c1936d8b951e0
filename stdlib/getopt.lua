-- getopt.lua: the one command-line parser of bundled scripts (and of any
-- script that wants one). A script declares its options once:
--
--   local getopt = require("ltap.getopt")
--   local o, args = getopt{
--     {"-i, --interval", "duration", "print the tables every INTERVAL", default = "5s", arg = "INTERVAL"},
--     {"-n, --top", "integer", "the N first rows of each table", default = 10, min = 1, arg = "N"},
--     {"-L, --latency", "flag", "also the time each syscall takes"},
--     targets = true,
--   }
--
-- An entry: its names (a letter after -, a word after --), its type, its
-- help line, and as needed:
--   default = V      in the command line's form ("5s"), typed as a given value is
--   arg = "NAME"     the value's name in the help (default: the choices a|b, or by
--                    type: N, DURATION, SIZE, VALUE)
--   min = X, max = Y the range of a number or an integer
--   choices = {...}  the values a string may take
--   many = true      it may repeat: a list of the values, in order
--   each = FN        FN(value, opts) for every occurrence, in order; returning
--                    nil, MSG refuses it with MSG (a usage error)
--   key = "k"        its key in the result (default: the long name with "-"
--                    as "_", else the letter)
-- Types: "flag" (true when given), "string", "number", "integer",
-- "duration" (ns, the grammar of ltap.parse_duration: "10s", "250ms", a bare
-- number is seconds), "size" (bytes, ltap.parse_size: "8M").
--
-- The declaration may also say:
--   targets = true   the script takes the target options of ltap's own
--                    command line (-p PID, -c CMD, -a, -d DURATION, --record
--                    FILE), or a list of them ({"-c", "-d"}); they are handed
--                    to ltap.options, which checks them as ltap's command
--                    line does, with its messages ("-p: bad pid '0' (1 to
--                    2147483647)"), and are in the result too (pid, command,
--                    all, duration, record: as given)
--   options_first = true  the first argument ends the options (the words of
--                    a COMMAND follow, as with perf stat)
--   args = "TEXT"    the arguments, for the usage line of a script without
--                    a usage: header
--
-- Returns the options (by key, defaults filled in) and the other arguments
-- in order. Short options cluster (-La, -n5); long ones take --top 5 or
-- --top=5; "--" ends the options; "-" and negative numbers are arguments.
-- -h and --help print the usage and exit 0: the script's header (summary,
-- usage, example: the lines `ltap scripts` reads) around the options of
-- the declaration, with their defaults. A mistake (an unknown option, a
-- missing or bad value) is a usage error: ltap prints one line, "ltap:
-- NAME: unknown option '--frob' (see: ltap NAME -h)", without a traceback,
-- and exits 2. getopt.error(MSG) raises one of the script's own ("START and
-- END events are needed"), getopt.value(TYPE, TEXT, NAME) types an argument
-- as an option's value is typed; a mistake in the declaration is a script
-- error (file:line and traceback).

local M = {}

local TARGETS = {
  {"-p, --pid", "string", "trace only process PID (its threads, and children it starts)", arg = "PID"},
  {"-c, --command", "string", "start CMD, trace it and its children, end when it exits", arg = "CMD"},
  {"-a, --all", "flag", "the whole system (the default without -p or -c)"},
  {"-d, --duration", "string", "end the run after DURATION (\"10s\", \"500ms\")", arg = "DURATION"},
  {"--record", "string", "also save the run's events as a trace.dat in FILE", arg = "FILE"},
}

local METAVAR = {string = "VALUE", number = "N", integer = "N", duration = "DURATION", size = "SIZE"}
local WIDTH = 79 -- of the help text

local function name_of_script(argv)
  return tostring(argv[0] or "script")
end

local function see(argv)
  return " (see: ltap " .. name_of_script(argv) .. " -h)"
end

-- "a, b or c"
local function or_list(t)
  if #t == 1 then return t[1] end
  return table.concat(t, ", ", 1, #t - 1) .. " or " .. t[#t]
end

local function range(e, what)
  if e.min and e.max then return what .. ", " .. e.min .. " to " .. e.max end
  if e.min then return what .. ", at least " .. e.min end
  if e.max then return what .. ", at most " .. e.max end
  return what
end

local function in_range(e, x)
  return x == x and (not e.min or x >= e.min) and (not e.max or x <= e.max)
end

-- type -> function(text, entry): value, or nil, what is bad, the hint
local convert = {
  string = function(v, e)
    if not e.choices then return v end
    for _, c in ipairs(e.choices) do if v == c then return v end end
    return nil, "value", or_list(e.choices)
  end,
  number = function(v, e)
    local x = tonumber(v)
    if x and in_range(e, x) then return math.tointeger(x) or x end
    return nil, "value", range(e, "a number")
  end,
  integer = function(v, e)
    local x = tonumber(v)
    x = x and math.tointeger(x)
    if x and in_range(e, x) then return x end
    return nil, "value", range(e, "an integer")
  end,
  duration = function(v, e)
    local ns = ltap.parse_duration(v)
    if ns and in_range(e, ns) then return ns end
    return nil, "duration", "try 10s, 500ms"
  end,
  size = function(v, e)
    local b = ltap.parse_size(v)
    if b and in_range(e, b) then return b end
    return nil, "size", "try 8M"
  end,
}

-- The entry's names ("-i, --interval") checked, and its key.
local function entry_names(e, level)
  local names = {}
  for n in tostring(e[1]):gmatch("[^,%s]+") do
    if not (n:match("^%-%a$") or n:match("^%-%-%w[%w-]+$")) then
      error("getopt: bad option name '" .. n .. "' (-x or --name)", level)
    end
    names[#names + 1] = n
  end
  if #names == 0 then error("getopt: an option without a name", level) end
  local long = tostring(e[1]):match("%-%-([%w-]+)")
  return names, e.key or (long and long:gsub("-", "_")) or names[1]:sub(2)
end

-- The declaration, checked (its mistakes are the script's, at its line):
-- a list of entries with .names and .key, and a name -> entry index.
local function compile(decl)
  if type(decl) ~= "table" then error("getopt: the declaration must be a table", 3) end
  local list, by_name = {}, {}
  local function add(e, target)
    if type(e) ~= "table" then error("getopt: option " .. #list + 1 .. " is not a table", 4) end
    local names, key = entry_names(e, 5)
    if not convert[e[2]] and e[2] ~= "flag" then
      error("getopt: " .. names[1] .. ": unknown type '" .. tostring(e[2]) ..
        "' (flag, string, number, integer, duration, size)", 4)
    end
    if type(e[3]) ~= "string" then error("getopt: " .. names[1] .. " has no help line", 4) end
    local c = {names = names, key = key, type = e[2], help = e[3], default = e.default, arg = e.arg,
      min = e.min, max = e.max, choices = e.choices, many = e.many, each = e.each, target = target}
    for _, n in ipairs(names) do
      if n == "-h" or n == "--help" then error("getopt: " .. n .. " is getopt's own (the usage)", 4) end
      if by_name[n] then error("getopt: option " .. n .. " is declared twice", 4) end
      by_name[n] = c
    end
    if c.default ~= nil and c.type ~= "flag" then
      local v, bad, hint = convert[c.type](tostring(c.default), c)
      if v == nil then error("getopt: " .. names[1] .. ": bad default " .. bad .. " '" .. tostring(c.default) ..
        "' (" .. hint .. ")", 4) end
      c.value = v
    end
    list[#list + 1] = c
  end
  for _, e in ipairs(decl) do add(e, false) end
  local targets = {}
  if decl.targets then
    local wanted = decl.targets == true and {} or decl.targets
    for _, n in ipairs(wanted) do wanted[n] = true end
    for _, t in ipairs(TARGETS) do
      local short = t[1]:match("^%-%a") or t[1]
      if decl.targets == true or wanted[short] then
        add(t, true)
        targets[#targets + 1] = list[#list]
        wanted[short] = nil
      end
    end
    for n in pairs(wanted) do
      if type(n) == "string" then error("getopt: no target option " .. n .. " (-p, -c, -a, -d, --record)", 3) end
    end
  end
  return list, by_name, targets
end

-- The header's fields (name, summary, usage, example): each its first line
-- and the indented lines under it, as written, without the "-- ".
local function header_fields(text)
  local fields, current, blanks = {}, nil, 0
  for raw in (text or ""):gmatch("[^\n]*") do
    local l = raw:gsub("^%-%-", "", 1):gsub("^ ", "", 1)
    local key = raw:match("^%-%- (%l+):")
    if key then
      current, blanks = {l}, 0
      fields[key] = current
    elseif current and l:match("^%s+%S") then
      for _ = 1, blanks do current[#current + 1] = "" end
      current[#current + 1], blanks = l, 0
    elseif current and l:match("^%s*$") then
      blanks = blanks + 1
    else
      current = nil
    end
  end
  return fields
end

local function option_label(c)
  local short, long = {}, {}
  for _, n in ipairs(c.names) do
    if #n == 2 then short[#short + 1] = n else long[#long + 1] = n end
  end
  local label = #short > 0 and table.concat(short, ", ") .. (#long > 0 and ", " or "") or "    "
  label = label .. table.concat(long, ", ")
  if c.type ~= "flag" then
    label = label .. " " .. (c.arg or (c.choices and table.concat(c.choices, "|")) or METAVAR[c.type])
  end
  return label
end

local function option_help(c)
  local h = c.help
  if c.many then h = h .. " (may repeat)" end
  if c.default ~= nil and c.type ~= "flag" then h = h .. " (default " .. tostring(c.default) .. ")" end
  return h
end

-- "  LABEL  HELP", HELP wrapped at WIDTH under itself
local function option_rows(out, list, width)
  for _, c in ipairs(list) do
    local label, line = "  " .. option_label(c), nil
    if #label + 2 > width then
      out[#out + 1] = label
      line = string.rep(" ", width)
    else
      line = label .. string.rep(" ", width - #label)
    end
    local fresh = true
    for word in option_help(c):gmatch("%S+") do
      if not fresh and #line + 1 + #word > WIDTH then
        out[#out + 1] = line
        line, fresh = string.rep(" ", width), true
      end
      line = line .. (fresh and "" or " ") .. word
      fresh = false
    end
    out[#out + 1] = line
  end
end

local function usage_text(decl, list, argv)
  local name = name_of_script(argv)
  local h = header_fields(ltap.script_header)
  local out = {}
  if h.summary then out[#out + 1] = name .. ": " .. h.summary[1]:gsub("^summary:%s*", "") .. "\n" end
  if h.usage then
    for _, l in ipairs(h.usage) do out[#out + 1] = l end
  else
    out[#out + 1] = "usage: ltap " .. name .. (#list > 0 and " [OPTIONS]" or "") .. (decl.args and " " .. decl.args or "")
  end
  local own, targets, width = {}, {}, 0
  for _, c in ipairs(list) do
    table.insert(c.target and targets or own, c)
    width = math.max(width, #option_label(c) + 4)
  end
  width = math.min(width, 30)
  own[#own + 1] = {names = {"-h", "--help"}, type = "flag", help = "this text"}
  out[#out + 1] = "\noptions:"
  option_rows(out, own, width)
  if #targets > 0 then
    out[#out + 1] = "\ntarget options (as ltap's own, before or after " .. name .. "):"
    option_rows(out, targets, width)
  end
  if h.example then
    out[#out + 1] = ""
    for _, l in ipairs(h.example) do out[#out + 1] = l end
  end
  return table.concat(out, "\n") .. "\n"
end

-- getopt.error(MSG): the script's own usage error, pointing at -h.
function M.error(msg, argv)
  ltap.usage_error(tostring(msg) .. see(argv or arg or {}))
end

-- getopt.value(TYPE, TEXT, NAME, [{min=, max=, choices=}]): an argument
-- typed as an option's value is, or the same usage error ("NAME: bad
-- duration 'x' (try 10s, 500ms)").
function M.value(kind, text, name, limits)
  local to = convert[kind]
  if not to then error("getopt.value: unknown type '" .. tostring(kind) .. "'", 2) end
  local v, bad, hint = to(tostring(text), limits or {})
  if v == nil then ltap.usage_error(name .. ": bad " .. bad .. " '" .. tostring(text) .. "' (" .. hint .. ")") end
  return v
end

-- getopt(DECL, [ARGV]): the options and the arguments of ARGV (default: arg).
local function parse(decl, argv)
  argv = argv or arg or {}
  local list, by_name, targets = compile(decl)
  local function fail(msg) M.error(msg, argv) end
  local o, args, i = {}, {}, 1

  local function set(c, name, text)
    local v = true
    if c.type ~= "flag" then
      v = M.value(c.type, text, name, c)
    end
    if c.each then
      local ok, why = c.each(v, o)
      if ok == nil and why then fail(why) end
    end
    if c.many then
      o[c.key] = o[c.key] or {}
      table.insert(o[c.key], v)
    else
      o[c.key] = v
    end
  end

  -- the value glued to the option (--top=5, -n5), else the next argument
  local function value_of(name, glued)
    if glued then return glued end
    local v = argv[i]
    if v == nil then fail(name .. " needs a value") end
    i = i + 1
    return v
  end

  local function help()
    io.stdout:write(usage_text(decl, list, argv))
    io.stdout:flush()
    os.exit(0)
  end

  while argv[i] ~= nil do
    local a = tostring(argv[i])
    i = i + 1
    if a == "--" then
      for k = i, #argv do args[#args + 1] = argv[k] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, inline = a:match("^(%-%-[^=]+)=(.*)$")
      name = name or a
      if name == "--help" then help() end
      local c = by_name[name]
      if not c then fail("unknown option '" .. name .. "'") end
      if c.type == "flag" then
        if inline then fail(name .. " takes no value") end
        set(c, name)
      else
        set(c, name, value_of(name, inline))
      end
    elseif a:match("^%-.") and not tonumber(a) then
      -- -x, -xVALUE, or flags together (-La)
      local j = 2
      while j <= #a do
        local name = "-" .. a:sub(j, j)
        if name == "-h" then help() end
        local c = by_name[name]
        if not c then
          fail("unknown option '" .. (j == 2 and a or name .. "' in '" .. a) .. "'")
        end
        if c.type == "flag" then
          set(c, name)
          j = j + 1
        else
          set(c, name, value_of(name, j < #a and a:sub(j + 1) or nil))
          break
        end
      end
    else
      args[#args + 1] = a
      if decl.options_first then
        for k = i, #argv do args[#args + 1] = argv[k] end
        break
      end
    end
  end

  for _, c in ipairs(list) do
    if o[c.key] == nil and c.value ~= nil then o[c.key] = c.value end
  end
  if #targets > 0 then
    local t, any = {}, false
    for _, c in ipairs(targets) do
      if o[c.key] ~= nil then t[c.key], any = o[c.key], true end
    end
    if any then ltap.options(t) end
  end
  return o, args
end

return setmetatable(M, {__call = function(_, decl, argv) return parse(decl, argv) end})

-- getopt.lua: command-line options of bundled scripts.
--
--   local getopt = require("ltap.getopt")
--   local o, rest = getopt(arg, {i = "value", n = "number", L = "flag", perfetto = "value"},
--                          "usage: syscount [-i INTERVAL] [-n TOP] [-L]")
--
-- One-letter names are -x, longer ones --name; "flag" options are true when
-- given, "value" ones take the next argument (or --name=VALUE), "number"
-- ones a number, "list" ones may repeat (a table of values). The other arguments come back in
-- order in `rest`. A bad option raises "NAME: ... (USAGE)", without a
-- traceback position, so ltap prints one clear line.

return function(args, spec, usage)
  local name = usage:match("^usage:%s*(%S+)") or "script"
  local function fail(msg) error(name .. ": " .. msg .. " (" .. usage .. ")", 0) end
  local opts, rest, i = {}, {}, 1
  while args[i] ~= nil do
    local a = args[i]
    local key = a:match("^%-%-(.+)$") or (a:match("^%-(%a)$"))
    local inline
    if key and not spec[key] and key:find("=", 1, true) then key, inline = key:match("^([^=]*)=(.*)$") end
    if key and spec[key] then
      local kind = spec[key]
      if kind == "flag" then
        if inline then fail("--" .. key .. " takes no value") end
        opts[key] = true
        i = i + 1
      else
        local v = args[i + 1]
        if inline then v = inline; i = i - 1 end
        if v == nil then fail(a .. " needs a value") end
        if kind == "number" then
          v = tonumber(v) or fail(a .. " needs a number, not '" .. v .. "'")
          v = math.tointeger(v) or v
        end
        if kind == "list" then
          opts[key] = opts[key] or {}
          table.insert(opts[key], v)
        else
          opts[key] = v
        end
        i = i + 2
      end
    elseif a == "--" then
      for k = i + 1, #args do rest[#rest + 1] = args[k] end
      break
    elseif a:match("^%-") and a ~= "-" and not tonumber(a) then
      fail("unknown option '" .. a .. "'")
    else
      rest[#rest + 1] = a
      i = i + 1
    end
  end
  return opts, rest
end

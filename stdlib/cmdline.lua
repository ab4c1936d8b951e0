-- cmdline.lua: the command line of a bundled script: -X VALUE, --name VALUE
-- and flags, and the targets ltap itself would take (-p PID, -c CMD, -a,
-- -d DURATION) handed to ltap.options.
local M = {}

-- spec: option name -> "value" or "flag". Returns options, positionals;
-- raises "usage: ..." on an unknown option or a missing value.
function M.parse(argv, spec, usage)
  local opts, pos, i = {}, {}, 1
  while i <= #argv do
    local a = argv[i]
    local name = a:match("^%-%-(.+)$") or a:match("^%-(%a)$")
    if name and spec[name] then
      if spec[name] == "flag" then
        opts[name] = true
      else
        i = i + 1
        if argv[i] == nil then error(a .. " needs a value\nusage: " .. usage, 0) end
        opts[name] = argv[i]
      end
    elseif name or a:match("^%-%a") then
      error("unknown option " .. a .. "\nusage: " .. usage, 0)
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  return opts, pos
end

-- Hands -p, -c and -d (from opts) to ltap; -a (system-wide) is the default.
function M.targets(opts, usage)
  if opts.a and (opts.p or opts.c) then error("-a cannot be used with -p or -c\nusage: " .. usage, 0) end
  local pid = opts.p and tonumber(opts.p)
  if opts.p and not (pid and math.type(pid) == "integer" and pid > 0 and pid <= 0x7fffffff) then
    error("-p: bad pid '" .. opts.p .. "'", 0)
  end
  ltap.options { pid = pid, command = opts.c, duration = opts.d }
end

return M

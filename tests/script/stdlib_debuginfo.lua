-- The stdlib is embedded as bytecode with its debug information: tracebacks
-- and debug.getinfo still name stdlib/NAME.lua and its lines.
begin(function()
  local info = debug.getinfo(require("ltap.report").key_less, "S")
  print(info.source, info.linedefined > 0)
  local ok, err = pcall(require("ltap.flamegraph").svg, {}, {width = "wide"})
  print(ok, err)
  exit(0)
end)

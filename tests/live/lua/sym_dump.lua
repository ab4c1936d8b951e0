-- sym_dump.lua: every record's e.sym fields, one line each (symbolic_compare.py)
probe("*:*", function(e)
  local sym, keys = e:copy().sym, {}
  for k in pairs(sym) do keys[#keys + 1] = k end
  table.sort(keys)
  local out = {e.name}
  for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. sym[k] end
  print(table.concat(out, "\t"))
end)

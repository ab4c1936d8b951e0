-- ltap.parse_duration: the duration grammar of -d and every(), for Lua code
-- (derive.lua uses it): seconds as a number, or a string with a unit.
begin(function()
  for _, v in ipairs{"5s", "250ms", "1.5", "100us", "7ns", "2m", "1h", "0.3s", 0.3, 1.5, 0, 2} do
    print(v, ltap.parse_duration(v))
  end
  for _, v in ipairs{"", "5 s", "-1s", "5parsecs", "1e30h", -1, 1e300, true} do
    print(v, ltap.parse_duration(v))
  end
  exit(0)
end)

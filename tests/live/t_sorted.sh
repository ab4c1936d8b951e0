# sorted(): by value desc/asc, by key asc/desc, top N, ties by key, mixed keys.
cat > $WORK/s.lua <<'LUA'
local t = {b = 2, a = 2, c = 5, [10] = 1, [2] = 7}
local function show(...) local o = {} for k, v in sorted(t, ...) do o[#o + 1] = k .. "=" .. v end print(table.concat(o, " ")) end
show()
show("asc")
show("key")
show("key-desc")
show("desc", 2)
show(3)
show("desc", 0)
print(pcall(sorted, t, "sideways"))
for k in sorted({}) do print("never", k) end
printf("%-5s|%5d|%.2f\n", "ab", 42, 1 / 3)
LUA
run_ltap $WORK/out $WORK/err -d 1ms $WORK/s.lua
expect_eq "exit" 0 "$RC"
cat > $WORK/expected <<'TXT'
2=7 c=5 a=2 b=2 10=1
10=1 a=2 b=2 c=5 2=7
2=7 10=1 a=2 b=2 c=5
c=5 b=2 a=2 10=1 2=7
2=7 c=5
2=7 c=5 a=2

false	sorted: bad order 'sideways' (desc, asc, key, key-desc)
ab   |   42|0.33
TXT
diff -u $WORK/expected $WORK/out || fail "sorted output differs"
echo "ok: sorted output exact"

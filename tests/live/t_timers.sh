# A 1 s timer over a 3.5 s run fires 3 times; after() fires once; begin first.
cat > $WORK/t.lua <<'LUA'
local ticks = 0
begin(function() print("begin") end)
every("1s", function() ticks = ticks + 1; print("tick " .. ticks) end)
after("1500ms", function() print("after") end)
finish(function() print("end " .. ticks) end)
LUA
run_ltap $WORK/out $WORK/err -d 3.5s $WORK/t.lua
expect_eq "exit" 0 "$RC"
expect_eq "timer output" "begin tick 1 after tick 2 tick 3 end 3" "$(tr '\n' ' ' < $WORK/out | sed 's/ $//')"
# exit() from a timer ends the run early with its code; finish still runs
run_ltap $WORK/out $WORK/err -e 'after("200ms", function() exit(3) end) finish(function() print("fin") end)'
expect_eq "exit(3) code" 3 "$RC"
expect_eq "finish after exit" fin "$(cat $WORK/out)"

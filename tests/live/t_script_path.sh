# A bare name is a bundled script, never a file of the current directory
# (ltap runs as root; anyone may plant ./pagealloc in /tmp); a script file is
# named as a path (./x, x.lua, /path/x); an unknown bare name says how to
# run a local file.
mkdir -p $WORK/plant
# both a shell script (exec falls back to sh) and a Lua chunk: whichever
# way it ran, it leaves a mark
for name in pagealloc record stat syscount; do
  cat > $WORK/plant/$name <<EOF
--[[ 2>/dev/null
touch $WORK/ran-sh-$name; exit 0
]]
io.open("$WORK/ran-lua-$name", "w"):close()
EOF
  chmod 755 $WORK/plant/$name
done
cd $WORK/plant
run_ltap $WORK/out $WORK/err -d 250ms pagealloc
expect_eq "bundled pagealloc exit" 0 "$RC"
expect_grep "bundled pagealloc ran" "^#Pages Allocated          Process Name$" $WORK/out
run_ltap $WORK/out $WORK/err stat -e task-clock -- true
expect_grep "bundled stat ran" "Performance counter stats for 'true'" $WORK/err
run_ltap $WORK/out $WORK/err record -e sched:sched_process_exec -c true -o $WORK/r.dat
expect_eq "bundled record exit" 0 "$RC"
run_ltap $WORK/out $WORK/err -c true syscount
expect_eq "bundled syscount exit" 0 "$RC"
ls $WORK/ran-* 2>/dev/null && fail "a planted file of the current directory ran"
echo "ok: no planted file ran"

# named as a path, the local file is the script
run_ltap $WORK/out $WORK/err -d 100ms ./pagealloc
expect_eq "./pagealloc exit" 0 "$RC"
[ -e $WORK/ran-lua-pagealloc ] || fail "./pagealloc did not run the local file"
echo "ok: ./pagealloc runs the file"
printf 'print("local lua")\n' > $WORK/plant/mine.lua
run_ltap $WORK/out $WORK/err -d 100ms mine.lua
expect_eq "x.lua is a file" "local lua" "$(cat $WORK/out)"

# an unknown bare name, even when such a file is here
cp $WORK/plant/mine.lua $WORK/plant/mine
run_ltap $WORK/out $WORK/err mine
expect_eq "unknown bare name exit" 2 "$RC"
expect_eq "unknown bare name message" \
  "ltap: no bundled script named 'mine' (see: ltap scripts; a script file is named as a path: ltap ./mine)" "$(cat $WORK/err)"
cd - > /dev/null

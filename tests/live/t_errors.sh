# Each bad input: one clear line naming the thing, non-zero exit, clean kernel.
err() { run_ltap $WORK/out $WORK/err "$@"; [ "$RC" -ne 0 ] || fail "exit 0 for: $*"; }

err -e 'probe("kmem:mm_page_aloc", function() end)'
expect_grep "unknown event, with suggestion" "^ltap: -e:1: unknown event 'kmem:mm_page_aloc' \(did you mean kmem:mm_page_alloc" $WORK/err

err -e 'probe("kmem:mm_page_alloc", "order >>> 1", function() end)'
expect_grep "bad filter with the kernel's reason" "bad filter 'order >>> 1': .+" $WORK/err

err -c "$PROGS/getppid_loop 10" -e 'probe("syscalls:sys_enter_getppid", function(e) return e.nosuch end)'
expect_grep "unknown field, listing fields" "-e:1: syscalls:sys_enter_getppid has no field 'nosuch' \(fields: __syscall_nr\)" $WORK/err

printf 'local x = \nprobe(' > $WORK/syntax.lua
err $WORK/syntax.lua
expect_grep "syntax error with file:line" "syntax.lua:2: " $WORK/err

printf 'local function f()\n  error("boom")\nend\nafter("10ms", function() f() end)\n' > $WORK/rt.lua
err $WORK/rt.lua
expect_grep "runtime error with file:line" "rt.lua:2: boom" $WORK/err
expect_grep "traceback" "stack traceback:" $WORK/err

err -p 999999999 "$COUNT_SCRIPT"
expect_grep "no such pid" "^ltap: target: -p 999999999: no such process$" $WORK/err

err -c "/nonexistent/cmd" "$COUNT_SCRIPT"
expect_eq "cannot run exit code" 127 "$RC"
expect_grep "cannot run" "^ltap: target: cannot run '/nonexistent/cmd': No such file or directory$" $WORK/err

err nosuchscript
expect_grep "unknown script, and how to run a file" "^ltap: no bundled script named 'nosuchscript' \(see: ltap scripts; a script file is named as a path: ltap \./nosuchscript\)$" $WORK/err

err -d 5parsecs -e ''
expect_grep "bad duration" "bad duration '5parsecs'" $WORK/err

# not root: no permission
chmod 755 $WORK
set +e; setpriv --reuid=65534 --regid=65534 --clear-groups "$LTAP" "$COUNT_SCRIPT" > $WORK/out 2> $WORK/err; RC=$?; set -e
[ "$RC" -ne 0 ] || fail "non-root run exited 0"
expect_grep "not root" "run ltap as root" $WORK/err

# tracefs unavailable: a mount namespace with no tracefs and nowhere to mount it
set +e; unshare -m bash -c "umount -l $T 2>/dev/null; umount -l /sys/kernel/debug 2>/dev/null; mount -t tmpfs none /sys/kernel && exec \"$LTAP\" \"$COUNT_SCRIPT\"" > $WORK/out 2> $WORK/err; RC=$?; set -e
[ "$RC" -ne 0 ] || fail "no-tracefs run exited 0"
expect_grep "tracefs missing" "^ltap: tracefs: cannot mount tracefs on /sys/kernel/tracing" $WORK/err

# tracefs not mounted: ltap mounts it itself (in a private mount namespace)
set +e; unshare -m bash -c "umount -l $T; umount -l /sys/kernel/debug 2>/dev/null; \"$LTAP\" list kmem:mm_page_alloc && grep -c tracefs /proc/self/mounts" > $WORK/out 2> $WORK/err; RC=$?; set -e
expect_eq "mounts tracefs itself" "kmem:mm_page_alloc 1" "$(tr '\n' ' ' < $WORK/out | sed 's/ $//')"

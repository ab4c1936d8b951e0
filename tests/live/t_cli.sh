# list, scripts, --check, --help, script arguments, one-liners.
run_ltap $WORK/out $WORK/err list 'kmem:mm_page_al*'
expect_eq "list glob" "kmem:mm_page_alloc kmem:mm_page_alloc_extfrag kmem:mm_page_alloc_zone_locked" "$(sort $WORK/out | tr '\n' ' ' | sed 's/ $//')"
run_ltap $WORK/out $WORK/err list -v kmem:mm_page_alloc
expect_eq "list -v" "kmem:mm_page_alloc|    unsigned long pfn|    unsigned int order|    unsigned long gfp_flags|    int migratetype|" "$(tr '\n' '|' < $WORK/out)"
run_ltap $WORK/out $WORK/err list 'nosuch:*'
expect_eq "list no match exit" 1 "$RC"
run_ltap $WORK/out $WORK/err scripts
expect_grep "scripts lists pagealloc" "^pagealloc +pages allocated per process name" $WORK/out
run_ltap $WORK/out $WORK/err --check
expect_grep "check tracefs" "^tracefs +/" $WORK/out
expect_grep "check kprobes" "^kprobes +(yes|no \(kernel has no kprobe_events\))$" $WORK/out
expect_grep "check hardware" "^hardware counters +(yes|not supported)$" $WORK/out
expect_eq "check exit" 0 "$RC"
# as a user who may not read tracefs: the reason, not a bare "no"
set +e
setpriv --reuid=nobody --regid=nogroup --clear-groups "$LTAP" --check > $WORK/out 2> $WORK/err
RC=$?
set -e
expect_eq "check as nobody exit" 1 "$RC"
expect_grep "check as nobody: tracepoints" "^tracepoints +no permission to read $T \(run as root\)$" $WORK/out
expect_grep "check as nobody: perf" "^software counters +(yes|no permission \(kernel.perf_event_paranoid is [0-9-]+: run as root\))$" $WORK/out
run_ltap $WORK/out $WORK/err --help
expect_grep "help" "^usage: ltap" $WORK/out
printf 'print(arg[0], arg[1], arg[2], select("#", ...))\n' > $WORK/args.lua
run_ltap $WORK/out $WORK/err -d 10ms $WORK/args.lua a "b c"
expect_eq "script args" "$WORK/args.lua	a	b c	2" "$(cat $WORK/out)"
run_ltap $WORK/out $WORK/err -c "$PROGS/getppid_loop 321" -e 'n=0 probe("syscalls:sys_enter_getppid", function() n=n+1 end) finish(function() print(n) end)'
expect_eq "one-liner" 321 "$(cat $WORK/out)"

# pagealloc-postprocess: over a saved text trace its numbers equal those of
# the original's rules (computed here by an independent Python rendering of
# the Perl script's logic); live on a controlled workload; SIGINT behaviour.
D=$SRCDIR/tests/data/pagealloc-perl.txt
cat > $WORK/oracle.py <<'PY'
import re, sys
# trace-pagealloc-postprocess.pl's rules, line by line
rx = re.compile(r'\s*([a-zA-Z0-9-]*)\s*(\[[0-9]*\])\s*([0-9.]*):\s*([a-zA-Z_]*):\s*(.*)')
frag = re.compile(r'page=([0-9a-f]*) pfn=([0-9]*) alloc_order=([-0-9]*) fallback_order=([-0-9]*) pageblock_order=([-0-9]*) alloc_migratetype=([-0-9]*) fallback_migratetype=([-0-9]*) fragmenting=([-0-9]) change_ownership=([-0-9])')
cols = ["MM_PAGE_ALLOC", "MM_PAGE_ALLOC_ZONE_LOCKED", "MM_PAGE_FREE", "MM_PAGE_FREE_BATCHED", "MM_PAGE_PCPU_DRAIN",
        "HIGH_PCPU_DRAINS", "HIGH_PCPU_REFILLS", "MM_PAGE_ALLOC_EXTFRAG", "HIGH_EXT_FRAG", "HIGH_EXT_FRAGMENT_CHANGED",
        "HIGH_EXT_FRAGMENT_SEVERE", "HIGH_EXT_FRAGMENT_MODERATE", "EVENT_UNKNOWN"]
per = {}
for line in open(sys.argv[1]):
    m = rx.match(line)
    if not m or not m.group(4):
        continue
    pp, tp, det = m.group(1), m.group(4), m.group(5)
    s = per.setdefault(pp, {})
    inc = lambda k: s.__setitem__(k, s.get(k, 0) + 1)
    if tp == "mm_page_alloc": inc("MM_PAGE_ALLOC")
    elif tp == "mm_page_free": inc("MM_PAGE_FREE")
    elif tp == "mm_page_free_batched": inc("MM_PAGE_FREE_BATCHED")
    elif tp == "mm_page_pcpu_drain": inc("MM_PAGE_PCPU_DRAIN"); inc("DRAINED")
    elif tp == "mm_page_alloc_zone_locked": inc("MM_PAGE_ALLOC_ZONE_LOCKED"); inc("REFILLED")
    elif tp == "mm_page_alloc_extfrag":
        f = frag.search(det)
        if not f: continue
        inc("MM_PAGE_ALLOC_EXTFRAG")
        if int(f.group(8)):
            inc("HIGH_EXT_FRAG")
            inc("HIGH_EXT_FRAGMENT_SEVERE" if int(f.group(4)) <= 3 else "HIGH_EXT_FRAGMENT_MODERATE")
        if int(f.group(9)): inc("HIGH_EXT_FRAGMENT_CHANGED")
    else: inc("EVENT_UNKNOWN")
    if s.get("DRAINED") and tp != "mm_page_pcpu_drain": inc("HIGH_PCPU_DRAINS"); s["DRAINED"] = 0
    if s.get("REFILLED") and tp != "mm_page_alloc_zone_locked": inc("HIGH_PCPU_REFILLS"); s["REFILLED"] = 0
for s in per.values():
    if s.get("DRAINED"): s["HIGH_PCPU_DRAINS"] = s.get("HIGH_PCPU_DRAINS", 0) + 1
    if s.get("REFILLED"): s["HIGH_PCPU_REFILLS"] = s.get("HIGH_PCPU_REFILLS", 0) + 1
for k in sorted(per):
    print(k, *[per[k].get(c, 0) for c in cols])
PY
python3 $WORK/oracle.py $D > $WORK/want
run_ltap $WORK/out $WORK/err --input $D pagealloc-postprocess
expect_eq "exit" 0 "$RC"
grep -E '^[a-z0-9]+-[0-9]+ ' $WORK/out | awk '{$1=$1; print}' > $WORK/got
[ -s $WORK/want ] || fail "the oracle found no process"
diff -u $WORK/want $WORK/got || fail "per-process numbers differ from the original's rules"
echo "ok: $(wc -l < $WORK/got) processes, every counter as the original computes it"
expect_grep "header" "^Process +Pages +Pages +Pages +Pages +PCPU +PCPU +PCPU +Fragment +Fragment +MigType +Fragment +Fragment +Unknown$" $WORK/out

# --ignore-pid folds cc1-300 and cc1-301 into cc1
run_ltap $WORK/out $WORK/err --input $D pagealloc-postprocess --ignore-pid
a=$(awk '$1 ~ /^cc1-/ {s += $2} END {print s}' $WORK/want)
expect_eq "--ignore-pid" "$a" "$(awk '$1 == "cc1" {print $2}' $WORK/out)"

# live: the workload's allocations and frees, with its parent (ltap, which started it)
run_ltap $WORK/out $WORK/err -c "$PROGS/touch_pages 3000" pagealloc-postprocess --prepend-parent
expect_eq "live exit" 0 "$RC"
line=$(grep -E ' :: touch_pages-[0-9]+ ' $WORK/out)
echo "$line" | grep -qE '^ltap-[0-9]+ :: touch_pages-[0-9]+ ' || { cat $WORK/out; fail "no parent for touch_pages: '$line'"; }
n=$(echo "$line" | awk '{print $4}')
[ "$n" -ge 3000 ] || fail "touch_pages allocated $n pages, expected at least 3000"
echo "ok: live, parent known, $n allocations"

# SIGINT: the first prints the report 2 s later and goes on; a second
# within 2 s of another prints it and exits 0
"$LTAP" pagealloc-postprocess > $WORK/sig 2>&1 & l=$!; STARTED+=($l)
sleep 1
kill -INT $l; sleep 2.6
kill -0 $l || fail "ltap ended at the first SIGINT"
grep -q "^SIGINT received, report pending" $WORK/sig || fail "no message at the first SIGINT"
expect_eq "report 2 s after the first SIGINT" 1 "$(grep -c '^Process' $WORK/sig)"
kill -INT $l; sleep 0.3
kill -INT $l
wait $l; rc=$?
expect_eq "exit after the second SIGINT" 0 "$rc"
expect_grep "second SIGINT" "^Second SIGINT received quickly, exiting$" $WORK/sig
expect_eq "reports printed (first SIGINT, end)" 2 "$(grep -c '^Process' $WORK/sig)"


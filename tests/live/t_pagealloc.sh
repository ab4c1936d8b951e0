# The bundled pagealloc report: header, rows "%-25d %s" sorted, per interval.
run_ltap $WORK/out $WORK/err -c "$PROGS/touch_pages 20000" pagealloc 1
expect_eq "exit" 0 "$RC"
expect_grep "header" "^#Pages Allocated          Process Name$" $WORK/out
line=$(grep -E '^[0-9]+ +touch_pages$' $WORK/out | head -1)
[ -n "$line" ] || { cat $WORK/out; fail "no row for touch_pages"; }
n=${line%% *}
[ "$n" -ge 20000 ] || fail "touch_pages allocated $n pages, expected at least 20000"
expect_eq "row layout %-25d %s" "$(printf '%-25d %s' $n touch_pages)" "$line"
awk '/^#Pages/{prev=-1; next} /^[0-9]/{ if (prev >= 0 && $1 > prev) bad=1; prev=$1 } END{exit bad}' $WORK/out || fail "rows not sorted by count"
echo "ok: rows sorted"

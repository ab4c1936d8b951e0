#!/bin/bash
# The latency heat map of `ltap latency --heatmap` (stdlib/heatmap.lua) over
# a saved trace of known latencies: 10 columns of 100 ms, column i holding
# i + 1 pairs in log2 rows 11, 12, 13 by turn (55 pairs). The cells and
# their counts, exactly; the colour by count; the text form (the input of
# trace2heatmap.pl: "END_TIME LATENCY" in ns, one line a pair); linear rows
# up to the largest latency, cell for cell the ones trace2heatmap.pl drew
# from that text (recorded); and in headless Chromium: the cells, their
# counts summing to the pairs, each cell's hover text on the details line
# and as its tooltip, cleared on leaving it. Needs no kernel access.
set -u
: "${LTAP:?}"
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
work=$(mktemp -d /tmp/ltap-heat.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$here/chromium.sh"
cd $work

# the trace: the syscall tracer's lines of one thread, getppid entries and
# exits; pair j of column i starts at 500 s + i * 100 ms + j * 5 ms and
# lasts 3072 << (j % 3) ns
python3 - > trace.txt <<'PY'
print("# tracer: nop\n#")
for i in range(10):
    for j in range(i + 1):
        t = 500_000_000_000 + i * 100_000_000 + j * 5_000_000 + 1000
        lat = 3072 << (j % 3)
        for ts, what in ((t, "sys_getppid()"), (t + lat, "sys_getppid -> 0x1")):
            print(f"               a-100     [000] ..... {ts // 10**9}.{ts % 10**9:09d}: {what}")
PY
lat() { "$LTAP" --input trace.txt latency syscalls:sys_enter_getppid syscalls:sys_exit_getppid "$@" > out 2> err \
  || { cat err; fail "ltap latency $*"; }; }
lat --heatmap log2.svg --heatmap-text pairs.txt --heatmap-step 100ms
grep -q "heat map of 55 pairs (27 cells) written to log2.svg" err || { cat err; fail "the heat map's line"; }
lat --heatmap linear.svg --heatmap-step 100ms --heatmap-rows linear
lat --heatmap capped.svg --heatmap-step 100ms --heatmap-rows linear --heatmap-max 10us

# 1. the cells, exactly; colours; the text form; linear rows
python3 - <<'PY' || fail "heat map structure"
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
def cells(path):
    root = ET.parse(path).getroot()
    return root, [(int(r.get("data-col")), int(r.get("data-row")), int(r.get("data-count")), r)
                  for r in root.find("s:g[@id='cells']", ns)]
root, c = cells("log2.svg")
want = {}
for i in range(10):
    for j in range(i + 1):
        k = (i, 11 + j % 3)
        want[k] = want.get(k, 0) + 1
got = {(col, row): n for col, row, n, _ in c}
assert got == want, (got, want)
assert root.get("data-total") == "55" and root.get("data-out") == "0" and root.get("class") == "ltap-heatmap"
largest = max(want.values())
for col, row, n, r in c:
    title = r.find("s:title", ns).text
    assert title.startswith("time ") and ", latency " in title and f": {n} (" in title, title
    assert r.get("data-t0") == str(col * 100_000_000) and r.get("data-t1") == str((col + 1) * 100_000_000)
    assert r.get("data-lo") == str(1 << row) and r.get("data-hi") == str(1 << (row + 1))
    g = int(r.get("fill")[4:-1].split(",")[1])
    assert (g == 0) == (n == largest), (n, r.get("fill"))          # the largest count the reddest
pairs = [tuple(map(int, l.split())) for l in open("pairs.txt")]
assert len(pairs) == 55 and all(b in (3072, 6144, 12288) for _, b in pairs)
assert [a for a, _ in pairs] == sorted(a for a, _ in pairs)    # in time order, as trace2heatmap.pl reads them
_, lc = cells("linear.svg")
assert sum(n for *_, n, _ in lc) == 55 and max(row for _, row, _, _ in lc) == 49  # the largest in the top row
croot, cc = cells("capped.svg")
above = sum((i + 1) // 3 for i in range(10))                      # the 12288 ns pairs, above 10 us
assert croot.get("data-out") == str(above) and sum(n for *_, n, _ in cc) == 55 - above
print("ok: 27 cells as the trace has them, colours by count, 55 text lines, linear rows, a cap")
PY
[ $? -eq 0 ] || exit 1

# 2. trace2heatmap.pl drew the text form without error (its cells recorded
# in tests/data/heatmap-pl.expected: CDDL code, not shipped nor run here);
# ltap's linear cells are its cells but for three exact differences: the
# Perl draws neither the last column nor the row of the largest latency,
# and its column is a floating division, (t - t0) / 1e9 / 0.1, which puts
# a pair exactly on a boundary (0.3 s: 2.9999...) one column early. Its
# integer row step (245 ns against ltap's 245.76) gives these latencies
# the same rows.
python3 - $data/heatmap-pl.expected <<'PY' || fail "trace2heatmap.pl's cells"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
want = {}
for l in open(sys.argv[1]):
    if not l.startswith("#"):
        col, row, n = map(int, l.split())
        want[(col, row)] = n
pairs = [tuple(map(int, l.split())) for l in open("pairs.txt")]
t0, step, lmax = pairs[0][0], 100_000_000, max(b for _, b in pairs)
lstep, pstep = lmax / 50, lmax // 50
moved, got = 0, {}
for r in ET.parse("linear.svg").getroot().find("s:g[@id='cells']", ns):
    got[(int(r.get("data-col")), int(r.get("data-row")))] = int(r.get("data-count"))
last = max(col for col, _ in got)
for t, lat in pairs:
    col, row = (t - t0) // step, min(49, int(lat // lstep))
    assert got.get((col, row), 0) > 0, (t, lat)
    if col == last or row == 49:
        got[(col, row)] -= 1                       # not drawn by the Perl
        continue
    assert lat // pstep == row, (lat, row)          # the same row with its integer step
    pcol = int((t - t0) / 1e9 / 0.1)
    if pcol != col:
        assert (t - t0) % step == 0 and pcol == col - 1, (t, col, pcol)
        got[(col, row)] -= 1
        got[(pcol, row)] = got.get((pcol, row), 0) + 1
        moved += 1
got = {k: n for k, n in got.items() if n}
assert got == want, (got, want)
print(f"ok: trace2heatmap.pl's {len(want)} cells, count for count ({moved} pairs on a boundary one column early there)")
PY

# 3. in the browser: the log2 map inlined, the linear one in a frame
{
  echo '<!DOCTYPE html><html><body>'
  grep -v '^<?xml' log2.svg
  echo '<iframe id="lin" src="linear.svg" width="900" height="900"></iframe>'
  cat <<'JS'
<script>
var out = [];
function check(what, ok) { out.push(what + "=" + !!ok); }
function cellsOf(doc) { return Array.prototype.slice.call(doc.querySelectorAll("#cells > rect")); }
var cells = cellsOf(document), details = document.querySelector("#details");
check("cells", cells.length == 27);
check("counts_sum", cells.reduce(function (a, r) { return a + +r.getAttribute("data-count"); }, 0) ==
  +document.querySelector("svg.ltap-heatmap").getAttribute("data-total"));
var hover = cells.every(function (r) {
  r.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
  var t = details.textContent;
  return t == r.querySelector("title").textContent && t.indexOf(": " + r.getAttribute("data-count") + " (") > 0;
});
check("hover_details", hover);
cells[0].dispatchEvent(new MouseEvent("mouseout", {bubbles: true}));
check("hover_cleared", details.textContent == " ");
check("api", window.ltapHeatDetails(cells[5]) == cells[5].querySelector("title").textContent);
// the cells lie in their columns and rows: x grows with the column, y falls with the row
check("layout", cells.every(function (r) {
  return cells.every(function (q) {
    var dc = +q.getAttribute("data-col") - +r.getAttribute("data-col"), dr = +q.getAttribute("data-row") - +r.getAttribute("data-row");
    var dx = +q.getAttribute("x") - +r.getAttribute("x"), dy = +q.getAttribute("y") - +r.getAttribute("y");
    return Math.sign(dc) == Math.sign(dx) && Math.sign(dr) == -Math.sign(dy);
  });
}));
window.onload = function () {
  var lin = document.getElementById("lin").contentDocument, lc = cellsOf(lin);
  check("linear_sum", lc.reduce(function (a, r) { return a + +r.getAttribute("data-count"); }, 0) == 55);
  lc[0].dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
  check("linear_hover", lin.querySelector("#details").textContent == lc[0].querySelector("title").textContent);
  var p = document.createElement("pre"); p.id = "result"; p.textContent = out.join(" "); document.body.appendChild(p);
};
</script></body></html>
JS
} > page.html
browser_checks page.html 8
echo "PASS t_heatmap.sh"

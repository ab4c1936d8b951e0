#!/bin/bash
# The flame graph SVG and `ltap flamegraph`: frame for frame what
# FlameGraph's flamegraph.pl draws from the same input (recorded in
# tests/data/flamegraph-pl.expected), perf script input folded as
# stackcollapse-perf.pl folds it, the structure for a known input, and in
# headless Chromium: zoom, search, the case toggle, the state a URL carries,
# icicle, reversed, flame chart, palettes, width and minwidth, titles, the
# differential colours and the height limit. Needs no kernel access.
set -u
: "${LTAP:?}"
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
work=$(mktemp -d /tmp/ltap-flame.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$here/chromium.sh"
fg() { "$LTAP" flamegraph "$@" 2> $work/err || { cat $work/err; fail "ltap flamegraph $*"; }; }

# 1. flamegraph.pl's frames: same rects, colours (--hash), tooltips, labels
cd $data
while IFS='|' read -r section args; do
  awk -v s="== $section" '$0 == s { on = 1; next } /^== / { on = 0 } on' flamegraph-pl.expected > $work/want
  [ -s $work/want ] || fail "no section '$section' in flamegraph-pl.expected"
  fg $args $work/got.svg
  python3 $here/svgframes.py $work/got.svg > $work/got
  diff -u $work/want $work/got > $work/diff || { head -20 $work/diff; fail "flamegraph.pl parity: $args"; }
  echo "ok: as flamegraph.pl $section ($(($(wc -l < $work/want) - 1)) frames)"
done <<'CASES'
--hash flame-before.folded|--hash flame-before.folded
--hash flame-before.folded|--hash perf-script.txt
--hash --inverted --colors java flame-before.folded|--hash --inverted --colors java flame-before.folded
--hash --reverse flame-before.folded|--hash --reverse flame-before.folded
--hash --flamechart flame-before.folded|--hash --flamechart flame-before.folded
--hash --width 1400 --minwidth 1% --colors mem --title T --subtitle S --countname ns flame-before.folded|--hash --width=1400 --minwidth 1% --colors mem --title T --subtitle S --countname ns flame-before.folded
--hash --colors java flame-odd.folded|--hash --colors java flame-odd.folded
flame-diff.folded|flame-diff.folded
flame-diff.folded|--diff flame-before.folded flame-after.folded
--negate flame-diff.folded|--negate flame-diff.folded
CASES
fg flame-odd.folded $work/odd.svg
grep -q "1 lines of flame-odd.folded are not 'stack count' (first: line 9)" $work/err || { cat $work/err; fail "no note of the bad line"; }

# 2. perf script in, folded lines out, as stackcollapse-perf.pl (its output
# recorded in tests/script/perfscript_collapse.expected); from standard input
awk '$0 == "== perf-script.txt --all" { on = 1; next } /^== / { on = 0 } on' $here/../script/perfscript_collapse.expected > $work/want
"$LTAP" flamegraph --all --folded - < perf-script.txt > $work/got 2> $work/err || fail "--folded - exit"
diff -u $work/want $work/got || fail "--folded of perf script --all"
fg --kernel --addrs --folded $work/got perf-script.txt
awk '$0 == "== perf-script.txt --kernel --addrs" { on = 1; next } /^== / { on = 0 } on' $here/../script/perfscript_collapse.expected | diff -u - $work/got || fail "--folded --kernel --addrs"
echo "ok: perf script folded as stackcollapse-perf.pl ($(wc -l < $work/got) stacks)"
# older perf's frame lines, without leading blanks, recognized as perf script
# (no --from); a symbol printed blank stays a frame (" "); the last sample
# kept though no blank line follows it (the Perl's output recorded with one)
"$LTAP" flamegraph --folded $work/got perf-script-noindent.txt 2> $work/err || { cat $work/err; fail "noindent exit"; }
awk '$0 == "== perf-script-noindent.txt" { on = 1; next } /^== / { on = 0 } on' $here/../script/perfscript_collapse.expected | diff -u - $work/got || fail "perf script without leading blanks"
grep -q ';  2$' $work/got || fail "the frame named ' '"
echo "ok: perf script without leading blanks folded as stackcollapse-perf.pl ($(wc -l < $work/got) stacks)"
# a perf.data file is not read as folded text: one line saying what to do
"$LTAP" flamegraph $data/annotate-perf.data > /dev/null 2> $work/err && fail "a perf.data accepted"
[ "$(wc -l < $work/err)" = 1 ] && grep -q "annotate-perf.data is a perf.data file, not text: give it the text of perf script (perf script -i $data/annotate-perf.data | ltap flamegraph)" $work/err ||
  { cat $work/err; fail "perf.data message"; }
"$LTAP" flamegraph $data/getppid-pages.dat > /dev/null 2> $work/err && fail "a trace.dat accepted"
grep -q "getppid-pages.dat is binary, not text" $work/err || { cat $work/err; fail "binary input message"; }
echo "ok: a perf.data and a trace.dat refused in one line"
"$LTAP" flamegraph --inline perf-script.txt > /dev/null 2> $work/err && fail "--inline accepted"
grep -q "inline is not offered" $work/err || { cat $work/err; fail "--inline message"; }
"$LTAP" flamegraph --colors nope flame-before.folded > /dev/null 2> $work/err && fail "a bad palette accepted"
grep -q "unknown palette 'nope'" $work/err || { cat $work/err; fail "bad palette message"; }
"$LTAP" flamegraph $data/empty.txt > /dev/null 2> $work/err && fail "an empty input accepted"
grep -q "no stack counts in" $work/err || { cat $work/err; fail "empty input message"; }
cd $work

# 3. structure of a known input
cat > in.folded <<'F'
app;main;parse;lex 30
app;main;parse 10
app;main;hot_spin 50
app;main;do_syscall_64_[k];ksys_read_[k] 8
tool;run<&"x"> 2
F
printf 'app;main;parse 40\napp;main;hot_spin 10\n' > before.folded
# a realistic diff: hot_spin grows by 4 points of 1000 samples, parse shrinks by 2
printf 'app;main;hot_spin 400\napp;main;parse 300\napp;main;idle 300\n' > b.folded
printf 'app;main;hot_spin 440\napp;main;parse 280\napp;main;idle 280\n' > a.folded
printf 'b;x 1\na;y 1\nb;x 1\n' > chart.folded
printf 'java;java/lang/Thread:::run;Foo::bar;memcpy;sys_write_[k] 5\n' > java.folded
python3 -c '
print("app;main;work 200")
print(";".join(["ltap"] + ["[unknown]"] * 128) + " 20")' > deep.folded
fg --title 'test <graph>' in.folded fg.svg
fg --diff before.folded in.folded diff.svg
fg --diff b.folded a.folded realdiff.svg
fg --inverted in.folded inv.svg
fg --reverse in.folded rev.svg
fg --flamechart chart.folded chart.svg
fg --colors java java.folded java.svg
fg --colors mem in.folded mem.svg
fg --width 800 --minwidth 5% in.folded narrow.svg
fg --title 'T <t>' --subtitle 'S & s' --countname bytes in.folded titled.svg
fg deep.folded deep.svg

python3 - fg.svg diff.svg <<'PY' || fail "SVG structure"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
def frames(path):
    root = ET.parse(path).getroot()                      # also: well-formed XML, names escaped
    out = {}
    for g in root.find("s:g[@id='frames']", ns):
        out[(g.get("data-name"), int(g.get("data-depth")))] = g
    return root, out
root, f = frames(sys.argv[1])
assert len(f) == 10, sorted(f)   # all app tool main parse lex hot_spin, 2 kernel, run<&"x">
w = lambda k: int(f[k].get("data-w"))
assert w(("all", 0)) == 100 and w(("app", 1)) == 98 and w(("tool", 1)) == 2
assert w(("main", 2)) == w(("parse", 3)) + w(("hot_spin", 3)) + w(("do_syscall_64", 3)) == 98
assert w(("parse", 3)) == 40 and w(("lex", 4)) == 30       # parse: 10 self + 30 in lex
assert ('run<&"x">', 2) in f
# kernel frames: orange, their "_[k]" not shown (name, tooltip, label)
kernel = f[("ksys_read", 4)]
r, g, b = map(int, kernel.get("data-fill")[4:-1].split(",")); assert b == 0 and 90 <= g <= 155 and r >= 190, (r, g, b)
assert "_[k]" not in ET.tostring(kernel).decode()
hot = ET.tostring(f[("hot_spin", 3)]).decode()
assert "hot_spin (50 samples, 50.00%)" in hot, hot
assert root.find("s:text[@id='title']", ns).text == "test <graph>"
_, d = frames(sys.argv[2])
# before scaled to 100 samples: parse's own 80 -> 10, the largest change:
# saturated blue; hot_spin 20 -> 50: red, 30/70 of the way; main: white
assert d[("parse", 3)].get("data-fill") == "rgb(0,0,255)", d[("parse", 3)].get("data-fill")
assert d[("hot_spin", 3)].get("data-fill") == "rgb(255,120,120)", d[("hot_spin", 3)].get("data-fill")
assert d[("main", 2)].get("data-fill") == "rgb(255,255,255)", d[("main", 2)].get("data-fill")
print("ok: 10 frames, widths add up, escaping, kernel colour without _[k], diff red/blue")
PY
[ $? -eq 0 ] || exit 1

# 4. in the browser. The page inlines fg.svg (click zooms, search highlights,
# the case toggle) and opens the others in frames, some with a URL state
read hx hy < <(python3 -c '
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
for g in ET.parse("fg.svg").getroot().find("s:g[@id=\"frames\"]", ns):
    if g.get("data-name") == "hot_spin":
        r = g.find("s:rect", ns); print(r.get("x"), r.get("y"))')
[ -n "$hx" ] || fail "no hot_spin rect"
{
  echo '<!DOCTYPE html><html><body>'
  grep -v '^<?xml' fg.svg
  for f in "url:fg.svg?s=spin%7Clex&x=$hx&y=$hy" "case:fg.svg?s=HOT_SPIN" "casei:fg.svg?s=HOT_SPIN&i=1" inv:inv.svg \
           rev:rev.svg chart:chart.svg java:java.svg mem:mem.svg narrow:narrow.svg titled:titled.svg \
           realdiff:realdiff.svg deep:deep.svg; do
    echo "<iframe id=\"${f%%:*}\" src=\"${f#*:}\" width=\"1400\" height=\"900\"></iframe>"
  done
  cat <<'JS'
<script>
var out = [];
function check(what, ok) { out.push(what + "=" + !!ok); }
function framesOf(doc) { return Array.prototype.slice.call(doc.querySelectorAll("#frames > g")); }
function frame(doc, n, i) { return framesOf(doc).filter(function (g) { return g.getAttribute("data-name") == n; })[i || 0]; }
function rect(g) { return g.querySelector("rect"); }
function fill(g) { return rect(g).getAttribute("fill"); }
function rgb(g) { return fill(g).slice(4, -1).split(",").map(Number); }
function width(g) { return +rect(g).getAttribute("width"); }
var SEARCH = "rgb(230,0,230)";
// the inlined graph: a click zooms, the background resets, search, the case toggle
var hot = frame(document, "hot_spin"), parse = frame(document, "parse"), main = frame(document, "main");
hot.dispatchEvent(new MouseEvent("click", {bubbles: true}));
check("zoom", Math.abs(width(hot) - 1180) < 0.01);
check("sibling_hidden", parse.classList.contains("hide"));
check("ancestor_full", Math.abs(width(main) - 1180) < 0.01 && main.classList.contains("parent"));
document.querySelector("#unzoom").dispatchEvent(new MouseEvent("click", {bubbles: true}));
check("reset", !parse.classList.contains("hide") && Math.abs(width(hot) - 590) < 0.01);
ltapSearch("spin|lex");
check("highlight", fill(hot) == SEARCH && fill(frame(document, "lex")) == SEARCH && fill(parse) != SEARCH);
check("matched", document.querySelector("#matched").textContent == "Matched: 80.0%");
ltapSearch("READ$");
check("case_sensitive", document.querySelector("#matched").textContent == "Matched: 0.0%");
window.dispatchEvent(new KeyboardEvent("keydown", {key: "i", ctrlKey: true}));
check("ctrl_i_ignores_case", fill(frame(document, "ksys_read")) == SEARCH &&
  document.querySelector("#matched").textContent == "Matched: 8.0%" &&
  document.querySelector("#ignorecase").classList.contains("show"));
document.querySelector("#ignorecase").dispatchEvent(new MouseEvent("click", {bubbles: true}));
check("ic_click_toggles", fill(frame(document, "ksys_read")) != SEARCH);

window.onload = function () {
  function doc(id) { return document.getElementById(id).contentDocument; }
  function win(id) { return document.getElementById(id).contentWindow; }
  // ?s=spin|lex&x=&y= of hot_spin's rect: zoomed to hot_spin, matches highlighted
  var u = doc("url");
  check("url_zoom", Math.abs(width(frame(u, "hot_spin")) - 1180) < 0.01 && frame(u, "parse").classList.contains("hide"));
  check("url_search", fill(frame(u, "hot_spin")) == SEARCH && fill(frame(u, "lex")) == SEARCH &&
    u.querySelector("#matched").textContent == "Matched: 80.0%");
  check("url_kept", /s=spin%7Clex/.test(win("url").location.search) && /x=/.test(win("url").location.search));
  win("url").ltapResetSearch(); win("url").ltapReset();
  check("url_updates", win("url").location.search == "");
  // ?s=HOT_SPIN: no match until the case is ignored (ic, or ?i=1)
  var c = doc("case");
  check("url_case", c.querySelector("#matched").textContent == "Matched: 0.0%");
  win("case").ltapToggleCase();
  check("toggle_case", fill(frame(c, "hot_spin")) == SEARCH && c.querySelector("#matched").textContent == "Matched: 50.0%"
    && /i=1/.test(win("case").location.search));
  check("url_i", fill(frame(doc("casei"), "hot_spin")) == SEARCH);
  // icicle: the root on top, children below it
  var inv = doc("inv");
  check("inverted", +rect(frame(inv, "all")).getAttribute("y") < +rect(frame(inv, "app")).getAttribute("y") &&
    inv.querySelector("#title").textContent == "Icicle Graph");
  // reversed: the leaves are the roots' children
  var rev = doc("rev");
  check("reverse", framesOf(rev).filter(function (g) { return g.getAttribute("data-depth") == "1"; })
    .map(function (g) { return g.getAttribute("data-name"); }).sort().join(",") == 'hot_spin,ksys_read,lex,parse,run<&"x">');
  // flame chart: input order, only neighbours merged: b, a, b
  var ch = doc("chart"), b0 = frame(ch, "b", 0), b1 = frame(ch, "b", 1), a = frame(ch, "a");
  check("flamechart", b0 && b1 && a && +rect(b0).getAttribute("x") < +rect(a).getAttribute("x") &&
    +rect(a).getAttribute("x") < +rect(b1).getAttribute("x") && ch.querySelector("#title").textContent == "Flame Chart");
  // palettes: java (Java green, C++ yellow, kernel orange, other red), mem (green-blue)
  var j = doc("java"), jv = rgb(frame(j, "java/lang/Thread:::run")), cpp = rgb(frame(j, "Foo::bar")),
    k = rgb(frame(j, "sys_write")), sys = rgb(frame(j, "memcpy"));
  check("java_palette", jv[1] >= 200 && jv[0] == jv[2] && cpp[0] == cpp[1] && cpp[2] <= 70 && k[2] == 0 &&
    sys[0] >= 200 && sys[1] == sys[2]);
  check("mem_palette", framesOf(doc("mem")).every(function (g) { var v = rgb(g); return v[0] == 0 && v[1] >= 190; }));
  // --width 800 --minwidth 5%: the tool (2%) is left out
  var nw = doc("narrow");
  check("width", nw.documentElement.getAttribute("width") == "800" && Math.abs(width(frame(nw, "all")) - 780) < 0.01);
  check("minwidth", !frame(nw, "tool") && framesOf(nw).length == 8);
  var t = doc("titled");
  check("titles", t.querySelector("#title").textContent == "T <t>" && t.querySelector("#subtitle").textContent == "S & s" &&
    /^app \(98 bytes, 98.00%\)$/.test(frame(t, "app").querySelector("title").textContent));
  // a realistic diff: +4 points is the largest change: saturated red; -2: half blue
  var d = doc("realdiff");
  check("diff_saturated", fill(frame(d, "hot_spin")) == "rgb(255,0,0)" && fill(frame(d, "parse")) == "rgb(105,105,255)" &&
    fill(frame(d, "main")) == "rgb(255,255,255)");
  // 129 levels: the picture fits 1400x900; the junk tower waits for a click
  var dp = doc("deep"), cut = dp.querySelector("#frames > g.cut"), deepest = framesOf(dp).filter(function (g) {
    return g.getAttribute("data-depth") == "129"; })[0];
  check("deep_fits", +dp.documentElement.getAttribute("height") <= 800 && cut && deepest.classList.contains("hide"));
  // each click on a dashed frame shows it at the bottom with as much above it as fits
  for (var i = 0; i < 3 && deepest.classList.contains("hide"); i++) {
    win("deep").ltapZoom(cut);
    if (cut.classList.contains("hide")) break;
    cut = dp.querySelector("#frames > g.cut") || cut;
  }
  check("deep_zoom", !deepest.classList.contains("hide") && i == 2);
  var p = document.createElement("pre"); p.id = "result"; p.textContent = out.join(" "); document.body.appendChild(p);
};
</script></body></html>
JS
} > page.html
browser_checks page.html 27
echo "PASS t_flamegraph.sh"

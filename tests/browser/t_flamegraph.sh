#!/bin/bash
# The flame graph SVG: its structure for a known folded input, the diff
# colours, and in headless Chromium a click that zooms and a search that
# highlights. Needs no kernel access.
set -u
: "${LTAP:?}"
work=$(mktemp -d /tmp/ltap-flame.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > $work/in.folded <<'F'
app;main;parse;lex 30
app;main;parse 10
app;main;hot_spin 50
app;main;do_syscall_64_[k];ksys_read_[k] 8
tool;run<&"x"> 2
F
printf 'app;main;parse 40\napp;main;hot_spin 10\n' > $work/before.folded
"$LTAP" flamegraph --title 'test <graph>' $work/in.folded $work/fg.svg 2> $work/err || { cat $work/err; fail "flamegraph exit"; }
"$LTAP" flamegraph --diff $work/before.folded $work/in.folded $work/diff.svg 2> $work/err || { cat $work/err; fail "diff exit"; }

python3 - $work/fg.svg $work/diff.svg <<'PY' || fail "SVG structure"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
def frames(path):
    root = ET.parse(path).getroot()                      # also: well-formed XML, names escaped
    out = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") == "f":
            out[(g.get("data-name"), int(g.get("data-depth")))] = g
    return root, out
root, f = frames(sys.argv[1])
assert len(f) == 10, sorted(f)   # all app tool main parse lex hot_spin, 2 kernel, run<&"x">
w = lambda k: int(f[k].get("data-w"))
assert w(("all", 0)) == 100 and w(("app", 1)) == 98 and w(("tool", 1)) == 2
assert w(("main", 2)) == w(("parse", 3)) + w(("hot_spin", 3)) + w(("do_syscall_64_[k]", 3)) == 98
assert w(("parse", 3)) == 40 and w(("lex", 4)) == 30       # parse: 10 self + 30 in lex
assert ('run<&"x">', 2) in f
kernel = f[("ksys_read_[k]", 4)].get("data-fill"); user = f[("hot_spin", 3)].get("data-fill")
kr, kg, kb = map(int, kernel[4:-1].split(",")); assert kb == 40 and kg >= 140, kernel   # kernel: orange
assert "title" in ET.tostring(f[("hot_spin", 3)]).decode() and "50 samples, 50.00%" in ET.tostring(f[("hot_spin", 3)]).decode()
assert root.find("s:text", ns).text == "test <graph>"
_, d = frames(sys.argv[2])
grown = d[("hot_spin", 3)].get("data-fill"); shrunk = d[("parse", 3)].get("data-fill")
r, g, b = map(int, grown[4:-1].split(",")); assert r == 255 and g < 255 and g == b, grown        # red
r, g, b = map(int, shrunk[4:-1].split(",")); assert b == 255 and r < 255 and r == g, shrunk      # blue
print("ok: 10 frames, widths add up, escaping, kernel colour, diff red/blue")
PY
[ $? -eq 0 ] || exit 1

# in the browser: click hot_spin -> it spans the width, parse is hidden;
# search "spin|lex" -> those frames purple, 80% matched
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "FAIL: chromium is not installed (make.sh installs it)"; exit 1; }
{
  echo '<!DOCTYPE html><html><body>'
  grep -v '^<?xml' $work/fg.svg
  cat <<'JS'
<script>
var all = Array.prototype.slice.call(document.querySelectorAll("g.f"));
function frame(n) { return all.filter(function (g) { return g.getAttribute("data-name") == n; })[0]; }
var hot = frame("hot_spin"), parse = frame("parse"), main = frame("main"), out = [];
hot.dispatchEvent(new MouseEvent("click", {bubbles: true}));
out.push("zoom=" + (Math.abs(+hot.querySelector("rect").getAttribute("width") - 1180) < 0.01));
out.push("sibling_hidden=" + (parse.style.display == "none"));
out.push("ancestor_full=" + (Math.abs(+main.querySelector("rect").getAttribute("width") - 1180) < 0.01));
document.querySelector("#reset").dispatchEvent(new MouseEvent("click", {bubbles: true}));
out.push("reset=" + (parse.style.display == "" && Math.abs(+hot.querySelector("rect").getAttribute("width") - 590) < 0.01));
ltapSearch("spin|lex");
out.push("highlight=" + (hot.querySelector("rect").getAttribute("fill") == "rgb(200,0,200)" &&
  frame("lex").querySelector("rect").getAttribute("fill") == "rgb(200,0,200)" &&
  parse.querySelector("rect").getAttribute("fill") != "rgb(200,0,200)"));
out.push("matched=" + document.querySelector("#matched").textContent.replace(/ /g, "_"));
var p = document.createElement("pre"); p.id = "result"; p.textContent = out.join(" "); document.body.appendChild(p);
</script></body></html>
JS
} > $work/page.html
timeout 60 "$browser" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --user-data-dir=$work/profile --dump-dom "file://$work/page.html" > $work/dom 2> $work/browser.err
result=$(sed -n 's/.*<pre id="result">\(.*\)<\/pre>.*/\1/p' $work/dom)
want="zoom=true sibling_hidden=true ancestor_full=true reset=true highlight=true matched=Matched:_80.0%"
[ "$result" == "$want" ] || { tail -5 $work/browser.err; fail "browser: got '$result', want '$want'"; }
echo "ok: in Chromium: $result"
echo "PASS t_flamegraph.sh"

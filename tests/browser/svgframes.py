#!/usr/bin/env python3
# svgframes.py SVG: the frames of a flame graph SVG (flamegraph.pl's or
# ltap's), one line each, sorted: title|x|y|width|height|fill|label, after a
# line "svg WIDTH HEIGHT". The root's label is left out: flamegraph.pl leaves
# it empty, ltap writes "all". Used to record flamegraph.pl's output in
# tests/data/flamegraph-pl.expected and to compare ltap's with it.
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
print("svg", root.get("width"), root.get("height"))
rows = []
for g in root.find(".//%sg[@id='frames']" % NS):
    title = g.find(NS + "title").text
    r = g.find(NS + "rect")
    label = "" if title.startswith("all (") else (g.find(NS + "text").text or "")
    rows.append("|".join([title, r.get("x"), r.get("y"), r.get("width"), r.get("height"), r.get("fill"), label]))
print("\n".join(sorted(rows)))

#!/usr/bin/env python3
"""check_graph.py: the layers hold (tests/CMakeLists.txt, label unit).

- bindings/: the include graph, derived from the sources, has no cycle.
  A file and its header are one node (X.c with X.h, or with lX.h where
  runtime/ has an X.h of its own); an edge X -> Y when X.c or X's header
  includes Y's header from bindings/. A header without a .c (ctx.h's
  context, eventud.h) is a node of its own.
- runtime/ (and bindings/, from their objects): the call graph has no
  cycle. An edge X -> Y when X.o uses a symbol Y.o defines (nm), so a
  call, or a table of another file's functions, counts.

A cycle is printed with the includes or symbols that make it.

usage: check_graph.py SRCDIR [OBJECT...]
"""
import collections
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(d, header):
    """the node a header of directory d belongs to"""
    stem = header[:-2]
    if os.path.exists(os.path.join(d, stem + ".c")):
        return stem
    if stem.startswith("l") and os.path.exists(os.path.join(d, stem[1:] + ".c")):
        return stem[1:]
    return header


def include_graph(d):
    """node -> {node: [why]} from the sources of directory d"""
    g = collections.defaultdict(lambda: collections.defaultdict(list))
    for name in sorted(os.listdir(d)):
        if not name.endswith((".c", ".h")):
            continue
        node = name[:-2] if name.endswith(".c") else module_of(d, name)
        g[node]  # every file is a node
        with open(os.path.join(d, name), encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if not os.path.exists(os.path.join(d, inc)):
                continue  # runtime/, include/: below bindings
            to = module_of(d, inc)
            if to != node:
                g[node][to].append("%s includes %s" % (name, inc))
    return g


def call_graph(objects):
    """node -> {node: [why]} from the objects' symbols"""
    defs, undef = {}, collections.defaultdict(set)
    for o in objects:
        node = os.path.basename(o).split(".")[0]
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRV":
                defs[p[2]] = node
            elif len(p) == 2 and p[0] == "U":
                undef[node].add(p[1])
    g = collections.defaultdict(lambda: collections.defaultdict(list))
    for node in undef:
        g[node]
        for sym in sorted(undef[node]):
            to = defs.get(sym)
            if to and to != node:
                g[node][to].append("%s.o uses %s" % (node, sym))
    return g


def cycles(g):
    """the strongly connected components of more than one node (Tarjan)"""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in list(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def report(what, g):
    found = cycles(g)
    for comp in found:
        print("FAIL %s: a cycle among %s" % (what, ", ".join(comp)))
        for a in comp:
            for b in sorted(g[a]):
                if b in comp:
                    print("    %s -> %s: %s" % (a, b, "; ".join(g[a][b][:3])))
    if not found:
        edges = sum(len(v) for v in g.values())
        print("ok %s: %d nodes, %d edges, no cycle" % (what, len(g), edges))
    return len(found)


def main():
    src = sys.argv[1]
    objs = [o for a in sys.argv[2:] for o in a.split(";") if o]  # ctest passes a list as one argument
    bad = report("bindings/ include graph", include_graph(os.path.join(src, "bindings")))
    for layer in ("runtime", "bindings"):
        mine = [o for o in objs if "/%s/" % layer in o]
        if mine:
            bad += report("%s/ call graph" % layer, call_graph(mine))
    if objs and not any("/runtime/" in o for o in objs):
        print("FAIL: no runtime object given")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_docs.py: the docs hold together (tests/CMakeLists.txt, label unit).

- every relative link of README.md, docs/*.md, tests/README.md and
  bench/README.md names a file that exists, and an anchor (#...) a heading
  of that file (GitHub's rule: lower case, punctuation dropped, spaces -);
- with MAN pages given: each renders with no warning from `man --warnings`,
  as a terminal shows it and as lintian runs it, and says something (a
  NAME and more than a screen of text).

usage: check_docs.py SRCDIR [MANPAGE...]
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def slug(title):
    """GitHub's anchor of a heading"""
    t = re.sub(r"[`*_]", "", title).strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = not fence and HEADING.match(line)
        if m:
            out.add(slug(m.group(1)))
    return out


def check_links(src):
    files = [os.path.join(src, "README.md"), os.path.join(src, "tests/README.md"),
             os.path.join(src, "bench/README.md")]
    docs = os.path.join(src, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    bad = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        # code blocks and spans hold no links
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            rel = os.path.relpath(f, src)
            if not os.path.exists(dest):
                bad.append(f"{rel}: link to {target}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append(f"{rel}: link to {target}: no heading with that anchor")
    return files, bad


def check_man(page):
    """man --warnings as a reader's terminal runs it, and as lintian does
    (paginated: -Tutf8 -Z, 80 and 120 columns, a clean environment)"""
    bad = []
    runs = [(["man", "--warnings", "-l", page], {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8"})]
    for width in ("80", "120"):
        runs.append((["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page],
                     {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", "MANROFFSEQ": "", "MANWIDTH": width}))
    for i, (cmd, env) in enumerate(runs):
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        how = " ".join(cmd[:-1]) + (f" (MANWIDTH={env['MANWIDTH']})")
        if r.returncode != 0:
            bad.append(f"{page}: {how} exited {r.returncode}")
        if r.stderr.strip():
            bad.append(f"{page}: {how} warns:\n{r.stderr.rstrip()}")
        if i == 0 and ("NAME" not in r.stdout or r.stdout.count("\n") < 50):
            bad.append(f"{page}: renders {r.stdout.count(chr(10))} lines, no NAME or too short")
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    files, bad = check_links(sys.argv[1])
    for page in sys.argv[2:]:
        bad += check_man(page)
    for b in bad:
        print("FAIL:", b)
    if bad:
        sys.exit(1)
    print(f"ok: links of {len(files)} files; {len(sys.argv) - 2} manual pages render without warnings")


if __name__ == "__main__":
    main()

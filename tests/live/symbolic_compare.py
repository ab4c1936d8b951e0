#!/usr/bin/env python3
"""symbolic_compare.py: ltap's e.sym against trace-cmd report, record by record.

  symbolic_compare.py FORMATS_DIR LTAP_DUMP TRACECMD_REPORT

LTAP_DUMP: one line per record, "sys:name<TAB>field=text<TAB>...", what
e.sym gave (tests/live/lua/sym_dump.lua over the file). TRACECMD_REPORT:
`trace-cmd report -N` of the same file (-N: no plugins, so every event is
printed through its own print format, as ltap reads it; the kvm and
sched_switch plugins print their own way).

Independently of ltap, each event's print format is read here: the %s
conversions whose argument holds a __print_symbolic/__print_flags table on a
field (REC->x in the table's first argument) are that field's. For each
record: ltap names exactly those fields, and the trace-cmd line matches the
print format with ltap's texts in those conversions (every other
conversion any text). Prints the counts; exits 1 on the first mismatches.
"""
import re
import sys


def format_of(fmt_dir, event):
    system, name = event.split(":")
    with open(f"{fmt_dir}/{system}/{name}/format") as f:
        text = f.read()
    body = text[text.index("print fmt: ") + len("print fmt: "):].rstrip("\n")
    assert body[0] == '"'
    i, out = 1, []
    while body[i] != '"':  # the format string, its escapes as libtraceevent reads them
        if body[i] == "\\":
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(body[i + 1], "\\" + body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out), split_args(body[i + 1:].lstrip(", "))


def split_args(s):
    """top-level comma-separated arguments"""
    args, depth, cur, quote = [], 0, [], False
    for i, c in enumerate(s):
        if quote:
            cur.append(c)
            if c == '"' and s[i - 1] != "\\":
                quote = False
            continue
        if c == '"':
            quote = True
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    if "".join(cur).strip():
        args.append("".join(cur).strip())
    return args


def table_field(arg):
    """the field the first table of arg reads, or None"""
    m = re.search(r"__print_(symbolic|flags)\(", arg)
    if not m:
        return None
    first = split_args(arg[m.end():])[0]
    f = re.search(r"REC->(\w+)", first)
    return f.group(1) if f else None


def conversions(fmt):
    """[(start, end, conversion char)] of each argument-taking conversion"""
    convs = []
    for m in re.finditer(r"%(%|[-+ #0]*(\*|\d+)?(\.(\*|\d+))?[hlLzZjtq]*([a-zA-Z]))", fmt):
        if m.group(1) == "%":
            continue
        for star in (m.group(2), m.group(4)):  # a width or precision taken from an argument
            if star == "*":
                convs.append((m.start(), m.start(), "*"))
        c = m.group(5)
        end = m.end()
        if c == "p":
            while end < len(fmt) and fmt[end].isalnum():
                end += 1
        convs.append((m.start(), end, c))
    return convs


def main():
    fmt_dir, dump, report = sys.argv[1:4]
    layouts = {}

    def layout(event):
        if event not in layouts:
            fmt, args = format_of(fmt_dir, event)
            convs = conversions(fmt)
            fields = {}
            for k, (s, e, c) in enumerate(convs):
                if c == "s" and k < len(args):
                    f = table_field(args[k])
                    if f and f not in fields:
                        fields[f] = k
            layouts[event] = (fmt, convs, fields)
        return layouts[event]

    lines = [l for l in open(report, encoding="latin-1").read().split("\n") if re.match(r"\s*\S.*-\d+\s+\[\d+\]", l)]
    ours = open(dump, encoding="latin-1").read().rstrip("\n").split("\n")
    if len(lines) != len(ours):
        print(f"FAIL: trace-cmd report has {len(lines)} records, ltap {len(ours)}")
        return 1
    bad, checked, seen, failed = 0, 0, set(), set()
    for n, (line, mine) in enumerate(zip(lines, ours)):
        parts = mine.split("\t")
        event = parts[0]
        got = dict(p.split("=", 1) for p in parts[1:])
        fmt, convs, fields = layout(event)
        if "[FAILED TO PARSE]" in line:  # libtraceevent cannot read the format: nor can ltap
            fields = {}
            failed.add(event)
        if set(got) != set(fields):
            print(f"FAIL: record {n} {event}: ltap names {sorted(got)}, the format {sorted(fields)}")
            bad += 1
            continue
        name = event.split(":")[1]
        if not fields:
            continue
        info = line[line.index(f" {name}:") + len(name) + 2:]  # the name padded, then the text
        by_conv = {k: got.get(f, "") for f, k in fields.items()}
        rx, pos = r" *", 0
        for k, (s, e, c) in enumerate(convs):
            rx += re.escape(fmt[pos:s].replace("%%", "%"))
            # a name is padded to the conversion's width, a number with no
            # name is not (libtraceevent prints 0x%llx itself); e.sym is the text alone
            if k in by_conv:
                v = by_conv[k]
                rx += "(?:%s|%s)" % (re.escape(fmt[s:e] % v), re.escape(v))
            else:
                rx += "(?:.*?)"
            pos = e
        rx += re.escape(fmt[pos:].replace("%%", "%"))
        if not re.fullmatch(rx, info, re.S):
            print(f"FAIL: record {n} {event}: ltap {got}; trace-cmd: {info}")
            bad += 1
        checked += len(got)
        seen.update((event, f) for f in got)
        if bad > 10:
            break
    # every event of the kernel whose format has a table on a field is in the file
    import glob
    want = set()
    for path in glob.glob(f"{fmt_dir}/*/*/format"):
        system, name = path.split("/")[-3:-1]
        try:
            fmt, args = format_of(fmt_dir, f"{system}:{name}")
        except (OSError, ValueError, AssertionError):
            continue
        if any(table_field(a) for a in args):
            want.add(f"{system}:{name}")
    missing = sorted(want - set(layouts))
    if missing:
        print(f"FAIL: events with a table on a field that the file lacks: {' '.join(missing[:20])}")
        bad += 1
    print(f"records {len(lines)} values {checked} fields {len(seen)} events {len(want & set(layouts))} of {len(want)} "
          f"unparsed {len(failed)} mismatches {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

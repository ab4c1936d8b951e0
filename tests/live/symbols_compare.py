# symbols_compare.py LTAP WORKDIR PID:FILE...: ltap's sym(ADDR, PID) against
# eu-addr2line -f -S -p PID on a few hundred addresses of each FILE mapped by
# process PID (evenly over its code, at and inside exported functions, every
# PLT entry), and against objdump's <FUNC@plt> labels in the PLT sections,
# which eu-addr2line leaves unnamed. Prints the agreement per file; exits 1
# on any difference outside the documented classes:
#  - plt: eu-addr2line has no name; the name is objdump's label, or for an
#    IRELATIVE slot (objdump: *ABS*+0xADDR@plt) the name at ADDR + "@plt",
#    as perf names it;
#  - tie: at one address, names of the same binding and size: eu-addr2line
#    takes the first in the table, ltap the public one (runtime/symtab.h:
#    the current version, fewer underscores, the shorter name).
import os
import re
import subprocess
import sys

TEXT_EVEN, FUNCS, PLT_MAX = 300, 90, 60


def run(args, stdin=None):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, check=True).stdout


def sections(path):
    out = {}
    for line in run(['readelf', '-SW', path]).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)', line)
        if m:
            out[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), m.group(4))
    return out


def symbol_file(path):
    """The separate debug file libdwfl would use (by build id), or path."""
    m = re.search(r'Build ID: ([0-9a-f]+)', run(['readelf', '-n', path]))
    if m:
        dbg = '/usr/lib/debug/.build-id/%s/%s.debug' % (m.group(1)[:2], m.group(1)[2:])
        if os.path.exists(dbg):
            return dbg
    return path


def symbols(path):
    """(value, size, bind, type, name) of every defined symbol of both tables."""
    out = []
    for line in run(['readelf', '-sW', path]).splitlines():
        f = line.split()
        if len(f) >= 8 and re.match(r'\d+:$', f[0]) and f[6] != 'UND':
            out.append((int(f[1], 16), int(f[2], 0), f[4], f[3], f[7]))
    return out


def load_bias(pid, path):
    first = min(int(f[3], 16) - int(f[2], 16) for f in
                (line.split() for line in run(['readelf', '-lW', path]).splitlines())
                if len(f) > 4 and f[0] == 'LOAD')
    etype = re.search(r'Type:\s+(\S+)', run(['readelf', '-hW', path])).group(1)
    if etype != 'DYN':
        return 0
    for line in open('/proc/%d/maps' % pid):
        f = line.split()
        if len(f) >= 6 and f[5] == path and int(f[2], 16) == 0:
            return int(f[0].split('-')[0], 16) - first
    sys.exit('%s is not mapped by %d' % (path, pid))


def plt_labels(path, scns):
    """objdump's labels in the PLT sections: [(start, name)] sorted."""
    args = ['objdump', '-d', '--no-show-raw-insn']
    for s in ('.plt', '.plt.sec', '.plt.got'):
        if s in scns:
            args += ['-j', s]
    labels = []
    for line in run(args + [path]).splitlines():
        m = re.match(r'([0-9a-f]+) <(.*)>:$', line)
        if m:
            # objdump names the lazy-binding header after the entry above it
            name = '.plt' if re.search(r'@plt-0x[0-9a-f]+$', m.group(2)) else m.group(2)
            labels.append((int(m.group(1), 16), name))
    return sorted(labels)


def addresses(path, scns, syms):
    """Link-time addresses to ask about, and which of them are in a PLT."""
    plt = set()
    picked = set()
    for name, (addr, size, flags) in scns.items():
        if 'X' not in flags or not size:
            continue
        if name.startswith('.plt'):
            step = 16 if name != '.plt.got' else 8
            entries = list(range(addr, addr + size, step))
            entries = entries[::max(1, len(entries) // PLT_MAX)]
            for a in entries:
                for x in (a, a + 4):
                    if x < addr + size:
                        picked.add(x)
                        plt.add(x)
        else:
            n = min(size, TEXT_EVEN) if name == '.text' else 2
            picked.update(addr + (size * i) // n for i in range(n))
    funcs = sorted({(v, s) for v, s, b, t, n in syms if t in ('FUNC', 'IFUNC') and b != 'LOCAL' and v})
    for v, s in funcs[::max(1, len(funcs) // FUNCS)]:
        picked.add(v)
        picked.add(v + min(max(s - 1, 0), 5))
    return sorted(picked), plt


def ltap_sym(ltap, work, queries):
    """queries: [(pid, addr)] -> {(pid, addr): (name, off, file, line)}"""
    qf = os.path.join(work, 'queries')
    with open(qf, 'w') as f:
        for pid, a in queries:
            f.write('%d %x\n' % (pid, a))
    code = '''begin(function()
  for l in io.lines(arg[1]) do
    local pid, a = l:match("(%d+) (%x+)")
    local name, off, mod, file, line = sym(tonumber(a, 16), tonumber(pid))
    print(string.format("%s %s|%s|%s|%s|%s", pid, a, name or "", off or "", file or "", line or ""))
  end
  exit()
end)'''
    out = {}
    for line in run([ltap, '-e', code, qf]).splitlines():
        pid, rest = line.split(' ', 1)
        a, name, off, file, lineno = rest.split('|')
        out[(int(pid), int(a, 16))] = (name or None, int(off) if off else None,
                                              '%s:%s' % (file, lineno) if file else None)
    return out


def eu_addr2line(pid, addrs):
    """{addr: (name, off, file:line)} from eu-addr2line -a -f -S -p PID."""
    out = run(['eu-addr2line', '-a', '-f', '-S', '-p', str(pid)], '\n'.join('0x%x' % a for a in addrs) + '\n')
    res, cur = {}, None
    entries = []
    for line in out.splitlines():
        if re.match(r'0x[0-9a-f]+$', line):
            cur = [int(line, 16)]
            entries.append(cur)
        else:
            cur.append(line)
    for e in entries:
        a, symline, src = e[0], e[-2], e[-1]
        # without a subprogram scope, the inline chain runs into the symbol
        m = re.match(r'.* inlined at .* in (.*)$', symline)
        if m:
            symline = m.group(1)
        name, off = None, None
        if symline != '??' and not symline.startswith('('):
            m = re.match(r'(.*)\+0x([0-9a-f]+)$', symline)
            name, off = (m.group(1), int(m.group(2), 16)) if m else (symline, 0)
        m = re.match(r'(.*?):(\d+)(?::\d+)?$', src)
        fl = None if src.startswith('??') or not m else '%s:%s' % (m.group(1), m.group(2))
        res[a] = (name, off, fl)
    return res


def preference(name):
    """The order symtab.h gives names of one binding and size: the current
    version, then fewer underscores, then the shorter name."""
    base, at, ver = name.partition('@')
    return (bool(at) and not ver.startswith('@'), base.count('_'), len(base))


def is_tie(syms, start, ours, theirs):
    """Both names at start with one binding and size, ours the preferred one."""
    a = [(s, b) for v, s, b, t, n in syms if v == start and n == ours]
    b = [(s, b) for v, s, b, t, n in syms if v == start and n == theirs]
    return bool(a and b) and a[0] == b[0] and preference(ours) < preference(theirs)


def compare(ltap, work, pid, path):
    scns = sections(path)
    symfile = symbol_file(path)
    syms = symbols(symfile) + (symbols(path) if symfile != path else [])
    bias = load_bias(pid, path)
    addrs, plt = addresses(path, scns, syms)
    labels = plt_labels(path, scns)
    ifunc = {}
    for start, name in labels:
        m = re.match(r'\*ABS\*\+0x([0-9a-f]+)@plt$', name)
        if m:
            ifunc[start] = int(m.group(1), 16)
    queries = [(pid, a + bias) for a in addrs] + [(pid, r + bias) for r in ifunc.values()]
    ours = ltap_sym(ltap, work, queries)
    theirs = eu_addr2line(pid, [a + bias for a in addrs])
    lines = both_lines = plt_named = unnamed_lines = 0
    ties = []
    name_diffs, line_diffs = [], []
    for a in addrs:
        ra = a + bias
        name, off, fl = ours[(pid, ra)]
        ename, eoff, efl = theirs[ra]
        if a in plt:
            start, label = max((l for l in labels if l[0] <= a), default=(None, None))
            if start in ifunc:
                target = ours[(pid, ifunc[start] + bias)]
                label = target[0] + '@plt' if target[0] and target[1] == 0 else label
            if ename is None and start is not None and (name, off) == (label, a - start):
                plt_named += 1
            else:
                name_diffs.append('%#x (plt): ltap %s+%s, objdump %s, eu-addr2line %s' % (a, name, off, label, ename))
        elif (name, off) != (ename, eoff):
            if name and ename and off == eoff and is_tie(syms, a - off, name, ename):
                ties.append('%#x: ltap %s, eu-addr2line %s' % (a - off, name, ename))
            else:
                name_diffs.append('%#x: ltap %s+%s, eu-addr2line %s+%s' % (a, name, off, ename, eoff))
        if efl and not ename and a not in plt:
            unnamed_lines += 1
        if efl or fl:
            both_lines += 1
            if efl == fl:
                lines += 1
            else:
                line_diffs.append('%#x: ltap %s, eu-addr2line %s' % (a, fl, efl))
    same = len(addrs) - plt_named - len(ties) - len(name_diffs)
    print('%s: %d addresses: %d named as eu-addr2line names them, %d PLT entries as objdump names them '
          '(eu-addr2line: no name), %d alias ties (symtab.h\'s choice), %d other; file:line equal %d/%d '
          '(%d without a symbol)' % (os.path.basename(path), len(addrs), same, plt_named, len(ties),
                                     len(name_diffs), lines, both_lines, unnamed_lines))
    for t in sorted(set(ties)):
        print('  tie ' + t)
    for d in name_diffs + line_diffs:
        print('  DIFF ' + d)
    return not name_diffs and not line_diffs


def main():
    ltap, work = sys.argv[1], sys.argv[2]
    ok = True
    for spec in sys.argv[3:]:
        pid, path = spec.split(':', 1)
        ok &= compare(ltap, work, int(pid), os.path.realpath(path))
    sys.exit(0 if ok else 1)


main()

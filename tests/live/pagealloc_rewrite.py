# pagealloc_rewrite.py TRACE: trace text rewritten into the one variant the
# Perl trace-pagealloc-postprocess.pl reads: no irq-flags column, no tgid
# column, comm characters outside [a-zA-Z0-9-] as '-'.
import re
import sys

rx = re.compile(r'^(\s*)(.*)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+(?:\S{4,5}\s+)?(\d+\.\d+:.*)$')
for line in open(sys.argv[1]):
    m = rx.match(line.rstrip('\n'))
    if line.startswith('#') or not m:
        sys.stdout.write(line)
        continue
    comm = re.sub(r'[^a-zA-Z0-9-]', '-', m.group(2))
    print('%s%s-%s [%s] %s' % (m.group(1), comm, m.group(3), m.group(4), m.group(5)))

#!/bin/bash
# The kernel symbol cache (runtime/ksymcache.c) on this machine's kernel:
# sym() names kernel addresses as /proc/kallsyms does with no cache (then
# made, mode 0600), with the cache (then /proc/kallsyms is not read whole),
# and past the kernel's text (read whole); with LTAP_KSYM_CACHE=off neither
# read nor made. Its body changed in place, header and sizes intact (every
# name's letters, every record's name offset, every address): one warning,
# the names still /proc/kallsyms's, the cache made anew. A saved profile's
# kernel samples are named the same with the cache as without.
. "$(dirname "$0")/lib.sh"
C=/run/ltap/kallsyms
# one byte into every 250th function of the kernel's text and init code,
# where no other symbol shares its address or the next byte; the expected
# line for each
python3 - $WORK/addrs.lua $WORK/expected <<'PY'
import sys
syms = []
for line in open('/proc/kallsyms'):
    f = line.split()
    if len(f) == 3 and f[1] in 'tTwW':
        syms.append((int(f[0], 16), f[2]))
if not syms or syms[0][0] == 0:
    sys.exit('no kernel addresses in /proc/kallsyms (kptr_restrict?)')
syms.sort(key=lambda s: s[0])
names = {n: a for a, n in syms}
init = [i for i, (a, n) in enumerate(syms) if names.get('_sinittext', 0) <= a < names.get('_einittext', 0)]
pick = [i for i in range(1, len(syms) - 1) if i % 250 == 0] + init[1:-1:40]
lua, exp = [], []
for i in pick:
    a, n = syms[i]
    if syms[i - 1][0] != a and syms[i + 1][0] > a + 1:
        lua.append('0x%x' % (a + 1))
        exp.append('%x %s 1 [kernel.kallsyms]' % (a + 1, n))
open(sys.argv[1], 'w').write('begin(function()\n  for _, a in ipairs({%s}) do\n'
    '    local n, o, m = sym(a)\n    print(string.format("%%x %%s %%s %%s", a, n, o, m))\n'
    '  end\n  exit()\nend)\n' % ', '.join(lua))
open(sys.argv[2], 'w').write('\n'.join(exp) + '\n')
print('%d addresses, %d in the init code' % (len(exp), sum(1 for e in exp if int(e.split()[0], 16) < names.get('_einittext', 0) and int(e.split()[0], 16) >= names.get('_sinittext', 1))))
PY
n=$(wc -l < $WORK/expected)
[ "$n" -ge 200 ] || fail "only $n kernel addresses to look up"

rm -f $C
export LTAP_KSYM_CACHE=off
run_ltap $WORK/off $WORK/off.err -v $WORK/addrs.lua
expect_eq "no cache: exit" 0 "$RC"
expect_eq "no cache: names as /proc/kallsyms" "" "$(diff $WORK/expected $WORK/off)"
expect_grep "no cache: read whole" "^ltap: kernel symbols: [0-9]+ read from /proc/kallsyms$" $WORK/off.err
expect_eq "no cache: none made" "absent" "$([ -e $C ] && echo present || echo absent)"
unset LTAP_KSYM_CACHE

run_ltap $WORK/made $WORK/made.err -v $WORK/addrs.lua
expect_eq "cache made: names as /proc/kallsyms" "" "$(diff $WORK/expected $WORK/made)"
expect_grep "cache made: written" "^ltap: kernel symbols: cache $C written$" $WORK/made.err
expect_eq "cache made: owner and mode" "root 600" "$(stat -c '%U %a' $C)"

run_ltap $WORK/used $WORK/used.err -v $WORK/addrs.lua
expect_eq "cache used: names as /proc/kallsyms" "" "$(diff $WORK/expected $WORK/used)"
expect_grep "cache used: from the cache" "^ltap: kernel symbols: [0-9]+ from the cache $C$" $WORK/used.err
expect_eq "cache used: /proc/kallsyms not read whole" "0" "$(grep -c 'read from /proc/kallsyms' $WORK/used.err || true)"

# the body changed, the file's header, size, owner and mode as they were
for how in names offsets addresses; do
  python3 - $C $how <<'PY'
import struct, sys
path, how = sys.argv[1], sys.argv[2]
HEADER = 8 + 8 + 4 * 8 + 4 + 4 + 64 + 2048  # runtime/ksymcache.c's struct ksc_header
with open(path, 'r+b') as f:
    b = bytearray(f.read())
    nsyms, slen = struct.unpack_from('<QQ', b, 16)
    strings = HEADER + 16 * nsyms
    if how == 'names':      # every letter of every name one further (the NULs kept)
        for i in range(strings, strings + slen):
            if 0x61 <= b[i] < 0x7a:
                b[i] += 1
    for r in range(nsyms):
        at = HEADER + 16 * r
        addr, name = struct.unpack_from('<QI', b, at)
        if how == 'offsets' and name + 1 < slen:   # each name from its second letter
            struct.pack_into('<I', b, at + 8, name + 1)
        if how == 'addresses':                      # each symbol a byte later, in order
            struct.pack_into('<Q', b, at, addr + 1)
    f.seek(0)
    f.write(b)
PY
  run_ltap $WORK/body $WORK/body.err -v $WORK/addrs.lua
  expect_eq "body changed ($how): names as /proc/kallsyms" "" "$(diff $WORK/expected $WORK/body)"
  expect_eq "body changed ($how): one warning" "1" "$(grep -c "^ltap: kernel symbols: cache $C not used: its checksum differs" $WORK/body.err)"
  expect_grep "body changed ($how): read whole" "^ltap: kernel symbols: [0-9]+ read from /proc/kallsyms$" $WORK/body.err
  expect_grep "body changed ($how): made anew" "^ltap: kernel symbols: cache $C written$" $WORK/body.err
  run_ltap $WORK/again $WORK/again.err -v $WORK/addrs.lua
  expect_eq "body changed ($how), then: names as /proc/kallsyms" "" "$(diff $WORK/expected $WORK/again)"
  expect_grep "body changed ($how), then: from the cache again" "^ltap: kernel symbols: [0-9]+ from the cache $C$" $WORK/again.err
  expect_eq "body changed ($how), then: no warning" "0" "$(grep -c 'warn\|not used' $WORK/again.err || true)"
done

# code outside the kernel's text (a module's, a BPF program's, a trampoline):
# only the whole table names it
other=$(awk 'NF == 4 && $2 ~ /^[tT]$/ { print $1, $3, $4; exit }' /proc/kallsyms)
if [ -n "$other" ]; then
  set -- $other
  echo "begin(function() print(sym(0x$1 + 2)) exit() end)" > $WORK/other.lua
  run_ltap $WORK/other $WORK/other.err -v $WORK/other.lua
  expect_eq "past the kernel's text: named" "$2	2	$3" "$(cat $WORK/other)"
  expect_grep "past the kernel's text: read whole" "past the kernel's text: the whole table read" $WORK/other.err
else
  echo "no code outside the kernel's text in /proc/kallsyms: that part not checked"
fi

# a saved profile of the whole machine copying zeros (kernel code): its kernel
# samples named alike
perf record -q -a -F 999 -o $WORK/p.data -- dd if=/dev/zero of=/dev/null bs=4k count=400000 2> /dev/null
cat > $WORK/rows.lua <<'LUA'
begin(function()
  local rows = assert(ltap.perfdata(arg[1]))
  local out = {}
  for _, r in ipairs(rows) do
    if r.module == "[kernel.kallsyms]" then out[#out + 1] = string.format("%s+%d %d", r.sym, r.off, r.samples) end
  end
  table.sort(out)
  print(table.concat(out, "\n"))
  exit()
end)
LUA
LTAP_KSYM_CACHE=off "$LTAP" $WORK/rows.lua $WORK/p.data > $WORK/rows.off
"$LTAP" -v $WORK/rows.lua $WORK/p.data > $WORK/rows.on 2> $WORK/rows.err
k=$(grep -c . $WORK/rows.off || true)
[ "$k" -ge 1 ] || fail "no kernel samples in the saved profile"
expect_eq "saved profile: $k kernel places named alike" "" "$(diff $WORK/rows.off $WORK/rows.on)"
expect_grep "saved profile: from the cache" "from the cache $C$" $WORK/rows.err
echo "ok: kernel symbol cache"

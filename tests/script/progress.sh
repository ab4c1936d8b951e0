#!/bin/bash
# progress.sh: a long replay shows how far it is on a terminal, and only
# there (runtime/progress.h). A text trace made here (timestamps 1 ms
# apart) is replayed by a script slow enough per event for the line to be
# redrawn, and printing as it goes (a timer) and at its end:
#   - in a pseudo-terminal (script(1), stdout and stderr on it): the line is
#     drawn, each draw is erased before anything else is written, and what
#     is left is exactly what the run prints without a terminal;
#   - without one (files, a pipe): no progress at all, even on stderr;
#   - with --format json on the terminal: none either.
# Replays touch no kernel state. Sanitizer reports fail the test.
set -euo pipefail
: "${LTAP:?LTAP must point at the ltap binary}"
work=$(mktemp -d /tmp/ltap-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/lsan.supp:print_suppressions=0" \
  ASAN_OPTIONS="log_path=$work/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/ubsan"
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$work/trace.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        f.write("            bash-30212   [000] ..... %d.%06d: mm_page_alloc: page=000000003dd5b990 "
                "pfn=0x13652a order=0 migratetype=0 gfp_flags=GFP_KERNEL\n" % (1000 + i // 1000, (i % 1000) * 1000))
PY
cat > "$work/slow.lua" <<'LUA'
local n, x, k = 0, 0, tonumber(arg[1])
probe("kmem:mm_page_alloc", function(e) n = n + 1 for i = 1, k do x = x + i end end)
every("30s", function() printf("after %d events\n", n) end)
finish(function() printf("%d events\n", n) end)
LUA

# work per event (K) doubled until the replay takes over 0.9 s: the line
# comes after 0.5 s, then every 0.25 s, so such a run must draw it
k=200
for _ in 1 2 3 4 5 6 7 8; do
  start=$(date +%s%N)
  "$LTAP" replay "$work/trace.txt" "$work/slow.lua" $k > "$work/plain.out" 2> "$work/plain.err"
  (( $(date +%s%N) - start > 900000000 )) && break
  k=$((k * 2))
done
grep -q '^300000 events$' "$work/plain.out" || { cat "$work/plain.out"; fail "the replay did not count 300000 events"; }
[ "$(grep -c '^after' "$work/plain.out")" -ge 5 ] || fail "the timer printed less than 5 times during the replay"
! grep -q 'replay trace.txt' "$work/plain.err" || fail "a progress line without a terminal: $(head -c 200 "$work/plain.err")"
echo "ok: no terminal, no progress line"

start=$(date +%s%N)
script -qfec "'$LTAP' replay '$work/trace.txt' '$work/slow.lua' $k" /dev/null > "$work/tty.raw"
secs=$(( ($(date +%s%N) - start) / 1000000 ))
python3 - "$work/tty.raw" "$work/plain.out" "$work/plain.err" "$secs" <<'PY'
import re, sys
raw = open(sys.argv[1], "rb").read().decode()
want = open(sys.argv[2]).read() + open(sys.argv[3]).read()
draw = r"ltap: replay trace\.txt: +\d+% \(\d+\.\d MB of \d+\.\d MB\)"
draws = re.findall(draw, raw)
# every draw is erased (\r, erase to the end of the line) before anything else
rest = re.sub(draw + r"\r\x1b\[K", "", raw)
assert "ltap: replay" not in rest, "a progress line not erased at once: " + repr(rest[:300])
rest = rest.replace("\r\n", "\n")
assert rest == want, "the terminal shows %r, not what the run prints: %r" % (rest[:300], want[:300])
secs = int(sys.argv[4]) / 1000
assert draws, "no progress line in %.1f s" % secs
pct = [int(re.search(r"(\d+)%", d).group(1)) for d in draws]
assert pct == sorted(pct), "the share goes back: %s" % pct
print("ok: on a terminal, %d progress lines in %.1f s (%s%%), each erased, the output intact" %
      (len(draws), secs, ",".join(map(str, pct))))
PY

script -qfec "'$LTAP' --format json --input '$work/trace.txt' '$work/slow.lua' $k" /dev/null > "$work/json.raw"
grep -q '"text":"300000 events' "$work/json.raw" || fail "the JSON run did not count 300000 events"
! grep -q 'ltap: replay' "$work/json.raw" || fail "a progress line with --format json"
echo "ok: --format json on a terminal: no progress line"
if compgen -G "$work/asan.*" >/dev/null || compgen -G "$work/ubsan.*" >/dev/null; then
  cat "$work"/asan.* "$work"/ubsan.*; fail "sanitizer reports"
fi

#!/bin/bash
# libltap from the outside (docs/embedding.md), each case of embed.test:
#   cycles:  1,000 hosts made, run and freed in one process (progs/host_cycles:
#            exact counts, hosts freed mid-run, two at once; the same fds and
#            no tracing state after; leaks: the ASan build's LeakSanitizer)
#   install: cmake --install into a DESTDIR; nm -D of the library shows ltap.h's
#            API (and the five libtraceevent parsers the trace.dat reader
#            stands in for) only; examples/embed_epoll.c built with nothing
#            but pkg-config --cflags --libs ltap, hosting a script beside its
#            own timer: the command it runs waits at a gate the test opens only
#            once the example's timer has fired 3 times, so the loop really is
#            shared; the count exact
#   lua:     Debian's lua5.4 with require "ltap" from the DESTDIR's Lua module
#            counting an exact N; examples/luv_count.lua the same beside a luv
#            timer
# Every host here runs under progs/pidnote (LTAP_BIN), so the engine knows
# its pid, as it knows an ltap's.
. "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$LTAP_BIN")
DEST=$WORK/dest
PREFIX=/usr/local
LIB=$DEST$PREFIX/lib
N=20000
# in the sanitizer build the library carries ASan and UBSan: what links it
# or loads it must too
SAN_CFLAGS=() SAN_PRELOAD="" NOPRE=()
if nm -D "$BUILD/libltap.so" | grep -q __asan_init; then
  SAN_CFLAGS=(-fsanitize=address,undefined)
  SAN_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  NOPRE=(env -u LD_PRELOAD) # not for the counted command: ASan's start calls getppid
fi
host() { LTAP_BIN="$1" "$LTAP" "${@:2}"; } # host PROGRAM ARGS: as the engine's ltap

install_dest() {
  [ -e $LIB/libltap.so ] && return 0
  DESTDIR=$DEST cmake --install "$BUILD" --prefix $PREFIX > $WORK/install.log
}

case ${1:?cycles, install or lua} in
cycles)
  host "$PROGS/host_cycles" 1000 20 5 "$SRCDIR/tests/data/getppid-pages.dat" 1001 > $WORK/host_cycles.txt 2> $WORK/example.err ||
    { cat $WORK/host_cycles.txt; fail "host_cycles failed"; }
  cat $WORK/host_cycles.txt
  expect_grep "1000 cycles, the same fds after" '^ok 1000 cycles: 950 replays, 50 live \(9 freed mid-run\)' $WORK/host_cycles.txt
  ;;
install)
  install_dest
  # only the API is exported
  nm -D --defined-only $LIB/libltap.so | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort > $WORK/exported
  sed -n 's/^LTAP_API [^(]* \**\(ltap_[a-z_]*\)(.*/\1/p' "$SRCDIR/include/ltap.h" > $WORK/api
  printf '%s\n' tep_parse_event tep_parse_header_page tep_parse_kallsyms tep_parse_printk_formats \
    tep_parse_saved_cmdlines >> $WORK/api
  sort -o $WORK/api $WORK/api
  diff -u $WORK/api $WORK/exported || fail "libltap exports other symbols than ltap.h's API"
  echo "ok: libltap exports ltap.h's $(grep -c ^ltap_ $WORK/exported) functions only"
  # the C example, from the installed files alone
  # (ltap.pc is relocatable: the staged one names the staged files)
  export PKG_CONFIG_PATH=$LIB/pkgconfig
  cc -O2 -Wall -Wextra -Werror "${SAN_CFLAGS[@]}" -o $WORK/embed_epoll "$SRCDIR/examples/embed_epoll.c" \
    $(pkg-config --cflags --libs ltap) || fail "the example does not build with pkg-config's flags"
  cat > $WORK/count.lua <<'LUA'
local n = 0
probe("syscalls:sys_enter_getppid", function(e) n = n + 1 end)
finish(function() printf("getppid %d, ticks seen %d\n", n, ticks()) end)
LUA
  rm -f $WORK/gate
  LD_LIBRARY_PATH=$LIB host $WORK/embed_epoll -i 20 $WORK/count.lua "$PROGS/getppid_loop" $N @$WORK/gate \
    > $WORK/example.txt 2> $WORK/example.err & STARTED+=($!)
  wait_for $WORK/example.txt '^tick 3$'
  touch $WORK/gate
  wait ${STARTED[-1]} || fail "embed_epoll exited with status $?"
  cat $WORK/example.txt | grep -v '^tick'
  ticks=$(sed -n 's/^getppid [0-9]*, ticks seen \([0-9]*\)$/\1/p' $WORK/example.txt)
  expect_grep "the example counted $N getppid" "^getppid $N, ticks seen" $WORK/example.txt
  [ "${ticks:-0}" -ge 3 ] || fail "the example's timer fired $ticks times before the command ran"
  expect_grep "the example's own status line" '^ltap status 0 after [0-9]+ ticks$' $WORK/example.txt
  ;;
lua)
  install_dest
  export LUA_CPATH="$DEST$PREFIX/lib/lua/5.4/?.so;;"
  cat > $WORK/req.lua <<LUA
local ltap = require "ltap"
local n = 0
ltap.probe("syscalls:sys_enter_getppid", function(e) n = n + 1 end)
ltap.options{command = "${NOPRE[*]} $PROGS/getppid_loop $N"}
local status = ltap.run()
assert(probe == nil and printf == nil and stats == nil, "ltap added globals")
print(string.format("require: getppid %d, status %d, ltap.state %s", n, status, ltap.state()))
LUA
  LD_PRELOAD=$SAN_PRELOAD host "$(command -v lua5.4)" $WORK/req.lua > $WORK/example.txt 2> $WORK/example.err || fail "lua5.4 failed"
  expect_grep "require \"ltap\" counted $N" "^require: getppid $N, status 0, ltap.state ended$" $WORK/example.txt
  # a declaration's message (a glob's warning) reaches the module's log, as
  # a script's reaches stderr; after a declaration that raised too
  cat > $WORK/decl.lua <<'LUA'
local ltap = require "ltap"
print("unknown:", pcall(ltap.probe, "nosuch:event", function() end))
ltap.probe("syscalls:sys_enter_*", function() end)
LUA
  LD_PRELOAD=$SAN_PRELOAD host "$(command -v lua5.4)" $WORK/decl.lua > $WORK/example.txt 2> $WORK/example.err || fail "lua5.4 failed (decl)"
  cat $WORK/example.txt $WORK/example.err
  expect_grep "the unknown event raised" "^unknown:	false	.*nosuch" $WORK/example.txt
  expect_grep "the glob's warning on the module's stderr" \
    "^ltap: .*decl\.lua:3: probe syscalls:sys_enter_\*: [0-9]+ events enabled" $WORK/example.err
  # a handler run in C (s:inc(e.comm): bindings/lower.c), system-wide (the
  # fed path), whose aggregate the host's own code replaces between steps,
  # after 1000 calls counted and before N more: those in the first, these
  # in the second (the step checks what the host's code may have changed)
  cat > $WORK/lowered.lua <<LUA
local ltap = require "ltap"
local s = ltap.stats()
local first = s
ltap.probe("syscalls:sys_enter_getppid", function(e) s:inc(e.comm) end)
ltap.options{all = true}
ltap.start()
local in_c = ltap.probe_hits()[1].in_c
local function count(x) return (x:get("getppid_loop") or {count = 0}).count end
local function step_until(x, n)
  for _ = 1, 2000 do if count(x) >= n then return end ltap.step(10) end
end
os.execute("${NOPRE[*]} $PROGS/getppid_loop 1000 > /dev/null")
step_until(first, 1000)
s = ltap.stats()
os.execute("${NOPRE[*]} $PROGS/getppid_loop $N > /dev/null")
step_until(s, $N)
ltap.stop()
while ltap.step(10) do end
print(string.format("lowered: in C %s, first %d, second %d, in C after %s", tostring(in_c), count(first), count(s),
  tostring(ltap.probe_hits()[1].in_c)))
LUA
  LD_PRELOAD=$SAN_PRELOAD host "$(command -v lua5.4)" $WORK/lowered.lua > $WORK/example.txt 2> $WORK/example.err || fail "lua5.4 failed (lowered)"
  cat $WORK/example.txt
  expect_grep "the swap between steps seen by the handler run in C" \
    "^lowered: in C true, first 1000, second $N, in C after false$" $WORK/example.txt
  rm -f $WORK/gate
  LD_PRELOAD=$SAN_PRELOAD host "$(command -v lua5.4)" "$SRCDIR/examples/luv_count.lua" "${NOPRE[@]}" "$PROGS/getppid_loop" $N \
    @$WORK/gate > $WORK/example.txt 2> $WORK/example.err & STARTED+=($!)
  wait_for $WORK/example.txt '^tick 3$'
  touch $WORK/gate
  wait ${STARTED[-1]} || fail "luv_count exited with status $?"
  grep -v '^tick' $WORK/example.txt
  expect_grep "luv_count counted $N beside its timer" "^getppid $N, ticks ([3-9]|[1-9][0-9]+), status 0$" $WORK/example.txt
  ;;
esac

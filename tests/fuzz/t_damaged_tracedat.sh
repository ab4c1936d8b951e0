#!/bin/bash
# t_damaged_tracedat.sh: ltap --input over trace.dat files damaged on purpose
# (damage_dat.py), each the way one crash of issue 13 came: exact message
# and exit code, or for a print format libtraceevent cannot evaluate safely,
# the event's fields as tostring's rendering. Before the fix these ended in
# SIGSEGV (nopid, cpumask), SIGBUS (hexlen), SIGFPE (divzero) and a silent
# replay (shortrec). Also: a sound file with a 6 MB text section (bigtext:
# a frame larger than ltap's buffer), a truncated file, a directory.
set -u
: "${LTAP:?LTAP must point at the ltap binary}"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/ltap-damaged.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0" ASAN_OPTIONS="log_path=$work/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/ubsan"
python3 "$here/damage_dat.py" "$here/../data/getppid-pages.dat" "$work" || exit 1
script='n = 0
probe("kmem:mm_page_alloc", function(e)
  n = n + 1
  if n == 1 then print(tostring(e)) end
  assert(e.tid > 0)
end)
finish(function() print(n) end)'
fail=0
check() { # check NAME RC STDOUT STDERR: runs ltap on $work/NAME.dat
  local name=$1 rc=$2 out=$3 err=$4 got
  timeout 20 "$LTAP" --input "$work/$name.dat" -e "$script" > "$work/out" 2> "$work/err"
  got=$?
  if [ $got -ne "$rc" ] || [ "$(cat "$work/out")" != "$out" ] || [ "$(cat "$work/err")" != "$err" ]; then
    echo "FAIL $name: exit $got (want $rc)"; echo "  stdout: $(cat "$work/out")"; echo "  want:   $out"
    echo "  stderr: $(cat "$work/err")"; echo "  want:   $err"; fail=1
  else
    echo "ok $name"
  fi
}
pre="ltap: replay: cannot read $work"
check nopid 1 "" "$pre/nopid.dat: damaged trace.dat (the format of kmem:mm_page_alloc has no 4-byte common_pid)"
check hexlen 1 "" "$pre/hexlen.dat: damaged trace.dat (event 2, cpu 0: a kmem:mm_page_alloc record whose printed arrays do not fit its 40 bytes)"
check shortrec 1 "" "$pre/shortrec.dat: damaged trace.dat (event 2, cpu 0: a kmem:mm_page_alloc record of 40 bytes (its format has 96))"
check divzero 0 "mm_page_alloc:  pfn=0x14b3e5 order=0 gfp_flags=0x440dc0 migratetype=0
432" ""
check cpumask 0 "mm_page_alloc:  pfn=0x14b3e5 order=0 gfp_flags=0x440dc0 migratetype=0
432" ""
check bigtext 0 "mm_page_alloc: page=0x14b3e5 pfn=0x14b3e5 order=0 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP
432" ""
# truncated inside the formats: libtracecmd refuses it
head -c 3000 "$here/../data/getppid-pages.dat" > "$work/short.dat"
check short 1 "" "$pre/short.dat: not a trace.dat file (or a damaged one)"
mkdir "$work/dir.dat"
check dir 1 "" "ltap: replay: cannot read $work/dir.dat: Is a directory"
if compgen -G "$work/asan.*" > /dev/null || compgen -G "$work/ubsan.*" > /dev/null; then
  cat "$work"/asan.* "$work"/ubsan.* 2>/dev/null; echo "FAIL: sanitizer reports"; fail=1
fi
exit $fail

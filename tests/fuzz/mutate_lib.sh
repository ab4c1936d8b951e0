# mutate_lib.sh: the loop of the mutation tests (tests/fuzz/t_mutate_tracedat.sh,
# tests/live/annotate.test), sourced.
#
#   mutate_loop CASES_DIR CASES_TXT CMD...: runs CMD, its word @ the case's
#   file, for each case of CASES_TXT (mutate_dat.py's lines: name, source,
#   what was done), with
#   the sanitizers logging into a directory of their own, under a TIMEOUT;
#   a signal, a hang or a sanitizer report fails the case, else the
#   caller's case_judge RC sets `why` (empty when the ending is a good one)
#   and returns 0 for a case read through, 1 for one refused. Output in
#   $work/out and $work/err. Counts in ok, errors, crashes, hangs, reports,
#   bad; the first ten failures are shown.
mutate_loop() {
  local cases=$1 list=$2 name from what f rc shown=0 a
  local -a cmd
  shift 2
  ok=0 errors=0 crashes=0 hangs=0 reports=0 bad=0
  export LSAN_OPTIONS="suppressions=$here/../lsan.supp:print_suppressions=0"
  while read -r name from what; do
    f=$cases/$name
    cmd=()
    for a in "$@"; do if [ "$a" = @ ]; then cmd+=("$f"); else cmd+=("$a"); fi; done
    mkdir "$work/san"
    ASAN_OPTIONS="log_path=$work/san/asan:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/san/ubsan" \
      timeout -k 2 "${TIMEOUT:-10}" "${cmd[@]}" > "$work/out" 2> "$work/err" < /dev/null
    rc=$?
    why=""
    if compgen -G "$work/san/*" > /dev/null; then
      reports=$((reports + 1)); why="sanitizer report: $(grep -m1 -h 'ERROR\|runtime error' "$work"/san/* | head -c 300)"
    fi
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      hangs=$((hangs + 1)); why="no end within ${TIMEOUT:-10}s $why"
    elif [ $rc -gt 128 ]; then
      crashes=$((crashes + 1)); why="killed by signal $((rc - 128)) $why"
    elif [ -z "$why" ]; then
      case_judge "$rc" "$f"
      case $? in
        0) [ -n "$why" ] || ok=$((ok + 1)) ;;
        *) [ -n "$why" ] || errors=$((errors + 1)) ;;
      esac
      [ -z "$why" ] || bad=$((bad + 1))
    fi
    if [ -n "$why" ] && [ $shown -lt 10 ]; then
      shown=$((shown + 1))
      echo "FAIL $name ($from, $what): $why"
      head -c 600 "$work/err" | sed 's/^/  | /'
    fi
    rm -rf "$work/san"
  done < "$list"
}

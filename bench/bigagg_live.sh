#!/usr/bin/env bash
# bench/bigagg_live.sh: interval reports of an aggregate of a million keys
# while tracing over a million events a second (issue 29): nothing may be
# lost with the default rings (8 MB a CPU). The aggregate is filled with 1M
# keys while the script loads; every getppid() of `getppid_loop N` (ltap -c)
# is counted into it by s:inc(e.comm); a timer reports it every second:
#
#   top     report(s, {top = 10})            the interval report of a big aggregate
#   whole   report(s) to /dev/null           every row, 1M of them, each second
#
# Per round: the events' rate (counted over the traced time, from attach to
# the end of the run, which includes the final drain), the events counted (must
# be N), the events lost (ltap's own count, and its "lost" line), how many
# reports ran and the longest. Holds the bench and live-test locks.
#
#   sudo bench/bigagg_live.sh            N=20000000, ROUNDS=3
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
PROG=${PROG:-$TOP/build/tests/getppid_loop}
N=${N:-20000000}
ROUNDS=${ROUNDS:-3}
KEYS=${KEYS:-1000000}
die() { echo "bigagg_live.sh: $*" >&2; exit 2; }
[[ $EUID -eq 0 ]] || die "must run as root"
[[ -x $LTAP && -x $PROG ]] || die "missing $LTAP or $PROG (build first)"
exec 8>/run/lock/ltap-bench.lock
flock 8
exec 9>/run/lock/ltap-live-tests.lock
flock 9
TMP=$(mktemp -d /tmp/ltap-bigagg-live.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# SCRIPT KIND: the report each second; stderr gets one line per report and
# the totals at the end (stdout is the reports')
script() {
	cat <<EOF
local s, n, reports, longest = stats{max_keys = 2 * $KEYS}, 0, 0, 0
for i = 1, $KEYS do s:inc("key-" .. i) end
probe("syscalls:sys_enter_getppid", function(e) s:inc(e.comm) n = n + 1 end)
every("1s", function()
  local t0 = os.clock()
  $( [[ $1 == top ]] && echo 'report(s, {top = 10})' || echo 'report(s)' )
  io.stdout:flush()
  local t = os.clock() - t0
  reports = reports + 1
  if t > longest then longest = t end
end)
finish(function()
  local secs = (ltap.now() - ltap.start_time()) / 1e9
  io.stderr:write(string.format("RESULT events=%d lost=%d keys=%d reports=%d longest_s=%.3f rate=%.0f\n",
    n, ltap.lost(), #s, reports, longest, n / secs))
end)
EOF
}

echo "ltap: $LTAP; kernel $(uname -r); $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) (a shared machine); N=$N, $KEYS keys, default rings"
printf '%-6s %-5s %12s %11s %10s %6s %8s %10s %s\n' report round "events/s" counted lost keys reports "longest s" "lost line"
for kind in top whole; do
	script $kind >$TMP/$kind.lua
	for ((r = 1; r <= ROUNDS; r++)); do
		"$LTAP" -c "$PROG $N" $TMP/$kind.lua >/dev/null 2>$TMP/err
		res=$(grep '^RESULT' $TMP/err) || die "no result: $(tail -3 $TMP/err)"
		get() { local l=" $res"; l=${l##* $1=}; echo "${l%% *}"; }
		printf '%-6s %-5s %12s %11s %10s %6s %8s %10s %s\n' $kind $r "$(get rate)" "$(get events)" "$(get lost)" \
			"$(get keys)" "$(get reports)" "$(get longest_s)" "$(grep -m1 '^ltap: lost' $TMP/err || echo none)"
		[[ $(get events) == "$N" ]] || echo "  counted $(get events), not $N"
	done
done

#!/usr/bin/env bash
# bench/short.sh: the whole of a short run, start to exit, beside perf stat
# and bpftrace doing the same (one tracepoint, system-wide, 1 ms), with
# hyperfine in one run:
#   ltap -d 1ms -e 'probe(EV, function(e) end)'
#   perf stat -a -e EV sleep 0.001
#   bpftrace -e 'tracepoint:EV {} interval:ms:1 { exit(); }'
#   sudo bench/short.sh            RUNS=40 EV=syscalls:sys_enter_getppid
# Holds the live-test lock (it touches the kernel); checks the tracing state
# is left clean.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$HERE")
LTAP=${LTAP:-$TOP/build/ltap}
RUNS=${RUNS:-40}
EV=${EV:-syscalls:sys_enter_getppid}
die() { echo "short.sh: $*" >&2; exit 2; }
[[ -x $LTAP ]] || die "missing $LTAP (build first)"
for t in hyperfine perf bpftrace; do command -v $t >/dev/null || die "missing $t (apt-get install ${t/perf/linux-perf})"; done
TMP=$(mktemp -d /tmp/ltap-short.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
exec 9>/run/lock/ltap-live-tests.lock
flock 9
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T
before=$(ls $T/instances | sort)
hyperfine -N -w 3 -r "$RUNS" --export-json $TMP/h.json \
  -n ltap "$LTAP -d 1ms -e 'probe(\"$EV\", function(e) end)'" \
  -n perf-stat "perf stat -a -e $EV sleep 0.001" \
  -n bpftrace "bpftrace -e 'tracepoint:${EV/:/:} {} interval:ms:1 { exit(); }'" >$TMP/out 2>&1 || { cat $TMP/out; die "hyperfine failed"; }
python3 - $TMP/h.json <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for k in ("ltap", "perf-stat", "bpftrace"):
    x = r[k]
    print(f"{k:10s} mean {x['mean']*1e3:7.1f} ms  median {x['median']*1e3:7.1f} ms  sd {x['stddev']*1e3:5.1f} ms  user {x['user']*1e3:5.1f} ms  system {x['system']*1e3:5.1f} ms")
print(f"ratio ltap / perf stat: mean {r['ltap']['mean']/r['perf-stat']['mean']:.2f}x, median {r['ltap']['median']/r['perf-stat']['median']:.2f}x; ltap / bpftrace: median {r['ltap']['median']/r['bpftrace']['median']:.2f}x")
PY
# the guardian removes ltap's instance after ltap exits: give it 2 s
for _ in $(seq 200); do [[ $(ls $T/instances | sort) == "$before" ]] && break; sleep 0.01; done
[[ $(ls $T/instances | sort) == "$before" ]] || die "an instance was left: $(ls $T/instances)"
[[ -z $(cat $T/set_event) ]] || die "set_event not empty"

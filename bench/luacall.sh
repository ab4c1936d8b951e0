#!/usr/bin/env bash
# bench/luacall.sh — the least a Lua handler per event can cost here: builds
# bench/luacall.c against the Lua ltap links (liblua5.4, pkg-config lua5.4)
# and runs it (no ltap, no kernel, no locks needed). See bench/README.md.
#
#   bench/luacall.sh              N=10000000 calls a row, best of ROUNDS=5
#   N=2000000 ROUNDS=3 bench/luacall.sh
set -eu
N=${N:-10000000}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMP=$(mktemp -d /tmp/ltap-luacall.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
command -v pkg-config >/dev/null && pkg-config --exists lua5.4 ||
	{ echo "luacall.sh: missing: pkg-config lua5.4 (liblua5.4-dev)" >&2; exit 2; }
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -o "$TMP/luacall" "$HERE/luacall.c" $(pkg-config --cflags --libs lua5.4)
echo "luacall: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"N=$N, best of $ROUNDS"
"$TMP/luacall" "$N" "$ROUNDS"

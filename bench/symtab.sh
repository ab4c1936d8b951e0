#!/bin/bash
# symtab.sh: what reading a file's symbols costs (bench/symtab_time.c over
# runtime/symtab.c, built against BUILD's libltap_runtime.a): open and read
# a table, a lookup by address, a function by name with its file opened.
#
#   bench/symtab.sh [FILE [FUNCTION]]          # default: libc, malloc
#   BUILD=build-asan bench/symtab.sh           # another build directory
#
# Touches no kernel state; holds the bench lock (CPU figures).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
[[ -f $BUILD/libltap_runtime.a ]] || { echo "symtab.sh: no $BUILD/libltap_runtime.a (build first)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/ltap-symtab.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -I "$TOP/runtime" "$TOP/bench/symtab_time.c" "$BUILD/libltap_runtime.a" -ldw -lelf -lz -ldl -o "$TMP/symtab_time"
exec 8>/run/lock/ltap-bench.lock
flock 8
"$TMP/symtab_time" "$@"

#!/bin/bash
# make.sh: the two set-up commands of the README, on a fresh Debian 12 as root.
#   ./make.sh pagealloc [INTERVAL]  install, build, run the page-allocation report
#   ./make.sh test                  install, build (plain and ASan+UBSan), run every test
set -euo pipefail
cd "$(dirname "$0")"

PKGS="build-essential cmake pkg-config liblua5.4-dev libtracefs-dev libtraceevent-dev libdw-dev util-linux lua-dkjson python3 libelf-dev systemtap-sdt-dev libtracecmd-dev trace-cmd chromium"

install_deps() {
  local missing=""
  for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    echo "installing:$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
  fi
}

build() { # build DIR [CMAKE ARGS...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

case "${1:-}" in
  pagealloc)
    shift
    install_deps
    build build
    exec build/ltap pagealloc "$@"
    ;;
  test)
    install_deps
    build build
    build build-asan -DLTAP_SANITIZE=ON
    rc=0
    echo "== tests: plain build"
    (cd build && ctest --output-on-failure) || rc=1
    echo "== tests: ASan+UBSan build"
    (cd build-asan && ctest --output-on-failure) || rc=1
    exit $rc
    ;;
  *)
    echo "usage: $0 pagealloc [INTERVAL] | test" >&2
    exit 2
    ;;
esac

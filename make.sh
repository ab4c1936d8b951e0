#!/bin/bash
# make.sh: the two set-up commands of the README, on a fresh Debian 12 as root.
#   ./make.sh pagealloc [INTERVAL]  install, build, run the page-allocation report
#   ./make.sh test                  install, build (plain and ASan+UBSan), run every test
#   ./make.sh deb                   install, build the Debian package (build-deb/ltap_*.deb)
set -euo pipefail
cd "$(dirname "$0")"

PKGS="build-essential cmake pkg-config liblua5.4-dev libtracefs-dev libtraceevent-dev libdw-dev util-linux lua-dkjson libelf-dev libtracecmd-dev systemtap-sdt-dev libmicrohttpd-dev libcapstone-dev libxxhash-dev"
# the tests' peers and tools: trace-cmd, Chromium (the flame graph SVG),
# python3, perl and linux-doc-6.1 (the kernel's own trace-pagealloc-postprocess.pl),
# elfutils (eu-addr2line) and libc6-dbg (libc's DWARF) for the symbol comparison;
# prometheus (promtool, and a server the tests start on loopback with their own
# config and storage) and python3-prometheus-client (a strict OpenMetrics parser).
# On a machine run by systemd, installing prometheus also enables and starts
# Debian's prometheus.service (:9090) and, as recommended, the node exporter
# (:9100); the tests neither use nor touch them (free loopback ports, their
# own process killed by pid). Without systemd (containers, CI) nothing starts.
# lua5.4 and lua-luv: Debian's own Lua interpreter and libuv binding, the
# hosts of require "ltap" in the embedding test (tests/live/embed.sh).
# tmux: a real terminal for ltap top's test (a pane, its screen captured);
# linux-perf: perf record, perf annotate and perf script, the peers of the
# profile, flame graph and annotate tests; bpftrace: the peer of ltap
# offcpu's test (sched_switch with user stacks on the same workload).
# pandoc: the manual pages from docs/ (built whenever pandoc is there; the
# test builds and the package require them, -DLTAP_MAN=ON).
DEB_PKGS="pandoc"
# qemu-system-x86 (with SeaBIOS and QEMU's option ROMs): the guest ltap vmboot's
# test boots under KVM.
# clang: the build test builds every build type with gcc and clang (with
# ninja-build: a fifth less time than make); lintian: the reviewer of the
# Debian package the tests build.
TEST_PKGS="python3 trace-cmd chromium perl linux-doc-6.1 elfutils libc6-dbg prometheus python3-prometheus-client tmux linux-perf lua5.4 lua-luv qemu-system-x86 bpftrace clang ninja-build lintian $DEB_PKGS"

install_deps() { # install_deps PACKAGES...
  local missing=""
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    echo "installing:$missing"
    # another apt (an unattended upgrade at boot) may hold dpkg's lock: wait for it
    apt-get -o DPkg::Lock::Timeout=600 update -q
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q $missing
  fi
}

build() { # build DIR [CMAKE ARGS...]: the project's own builds, warnings as errors
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTAP_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

case "${1:-}" in
  pagealloc)
    shift
    install_deps $PKGS
    build build
    exec build/ltap pagealloc "$@"
    ;;
  test)
    install_deps $PKGS $TEST_PKGS
    build build -DLTAP_MAN=ON
    build build-asan -DLTAP_SANITIZE=ON -DLTAP_MAN=ON
    rc=0
    echo "== tests: plain build"
    (cd build && ctest --output-on-failure) || rc=1
    echo "== tests: ASan+UBSan build"
    (cd build-asan && ctest --output-on-failure) || rc=1
    exit $rc
    ;;
  deb)
    install_deps $PKGS $DEB_PKGS
    exec dist/deb.sh build-deb
    ;;
  *)
    echo "usage: $0 pagealloc [INTERVAL] | test | deb" >&2
    exit 2
    ;;
esac

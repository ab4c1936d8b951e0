#!/bin/bash
# deb.sh [BUILD_DIR]: the Debian package of this tree, built the way Debian
# builds packages: a build of its own (no build type, dpkg-buildflags' flags
# with every hardening option on, warnings as errors), installed under /usr
# and packed by CPack (cmake/package.cmake). Prints the package's path.
# `./make.sh deb` runs it (BUILD_DIR build-deb); so does the test suite
# (tests/shipping/package.sh).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-deb}")
# dpkg-buildflags maps the current directory to "." in the debug information
cd "$src"
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
  -DLTAP_MAN=ON -DLTAP_WERROR=ON \
  -DCMAKE_C_FLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" -DCMAKE_SHARED_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" \
  -DCMAKE_MODULE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" >/dev/null
cmake --build "$out" -j"$(nproc)" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
rm -f "$out"/*.deb
(cd "$out" && cpack -G DEB >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log" >&2; exit 1; }
ls "$out"/*.deb

#!/bin/bash
# build_matrix.sh SRCDIR WORKDIR: ltap builds without a warning in every
# build type (none, Debug, Release, RelWithDebInfo, MinSizeRel) with gcc and
# with clang, from a clean copy of the tree: the files git tracks or would
# (untracked ones not ignored), nothing of a build directory. Each build is
# of the ltap target only (the product; tests and manual pages are built by
# make.sh's builds), warnings as errors, and its binary must run a script
# and say its version. The copy and the builds are removed at the end.
set -euo pipefail
src=$1 work=$2
version=$(sed -n 's/^project(ltap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[[ -n $version ]] || { echo "FAIL: no project(ltap VERSION ...) in $src/CMakeLists.txt"; exit 1; }
rm -rf "$work"
mkdir -p "$work/src"
trap 'rm -rf "$work"' EXIT
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # a file deleted but not committed is still listed: not copied, not an error
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$work/src" -xf -
else
  tar -C "$src" --exclude='./build*' -cf - . | tar -C "$work/src" -xf -
fi

# Ninja when there is one (make.sh installs it): it compiles the bindings
# while the runtime's archive is made, where make waits: ~20% less time
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
fails=0
for cc in gcc clang; do
  for type in "" Debug Release RelWithDebInfo MinSizeRel; do
    name="$cc ${type:-(no build type)}"
    dir=$work/$cc-${type:-none}
    start=$(date +%s.%N)
    if ! CC=$cc cmake "${gen[@]}" -S "$work/src" -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DLTAP_WERROR=ON \
           -DBUILD_TESTING=OFF -DLTAP_MAN=OFF >"$dir.log" 2>&1 ||
       ! cmake --build "$dir" -j2 --target ltap >>"$dir.log" 2>&1; then
      echo "FAIL: $name: the build failed:"; grep -E 'error|warning' "$dir.log" | head -20
      fails=$((fails + 1)); continue
    fi
    if grep -q 'warning' "$dir.log"; then
      echo "FAIL: $name: warnings:"; grep 'warning' "$dir.log" | head -20
      fails=$((fails + 1)); continue
    fi
    # a script with no probe runs without a kernel; not a checkout: no commit
    got=$(timeout 30 "$dir/ltap" -e 'printf("%d %s\n", 6 * 7, ltap.version) exit()' 2>&1; timeout 30 "$dir/ltap" --version 2>&1)
    want="42 $version
ltap $version"
    if [[ $got != "$want" ]]; then
      echo "FAIL: $name: the binary says"; echo "$got"; echo "instead of"; echo "$want"
      fails=$((fails + 1)); continue
    fi
    printf "ok: %s (%.1f s)\n" "$name" "$(echo "$(date +%s.%N) - $start" | bc)"
    rm -rf "$dir" "$dir.log"
  done
done
# the libFuzzer harnesses (-DLTAP_FUZZ=ON, clang, tests/fuzz/README.md) build
# with the same generator and run their seed corpora once: no suite test
# builds them otherwise, and twice they broke unnoticed
dir=$work/fuzz
start=$(date +%s.%N)
if ! CC=clang cmake "${gen[@]}" -S "$work/src" -B "$dir" -DLTAP_FUZZ=ON -DLTAP_WERROR=ON -DLTAP_MAN=OFF >"$dir.log" 2>&1 ||
   ! cmake --build "$dir" -j2 --target fuzz_text fuzz_ringpage fuzz_tracedat fuzz_perfdata fuzz_format >>"$dir.log" 2>&1; then
  echo "FAIL: the fuzz harnesses do not build:"; grep -E 'error|warning' "$dir.log" | head -20
  fails=$((fails + 1))
elif ! (cd "$dir" && ctest -L fuzz >>"$dir.log" 2>&1); then
  echo "FAIL: a fuzz harness fails on its seeds:"; tail -20 "$dir.log"
  fails=$((fails + 1))
else
  printf "ok: the fuzz harnesses, their seeds (%.1f s)\n" "$(echo "$(date +%s.%N) - $start" | bc)"
fi
[[ $fails == 0 ]] && echo "ok: 10 builds, the fuzz harnesses" || exit 1

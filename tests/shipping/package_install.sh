# package_install.sh DEBDIR: the packages tests/shipping/package.sh built,
# installed on this machine as a user would, as docs/building.md says: apt
# install ./ltap_*.deb ./libltap0_*.deb, the command, used (ltap --version,
# ltap pagealloc -d 2s counting a workload, man ltap, man ltap-lua); then
# the other two (require "ltap" in Debian's lua5.4, pkg-config ltap); then
# all purged: dpkg knows none of them and none of their files is left. Run
# by the engine (tests/shipping/package.test, REQUIRES no_ltap_package: one
# someone else installed is not ours to touch). Whatever happens, the
# machine's packages end as they were: the trap purges them and what apt
# installed with them (none here: make.sh installed their libraries already).
. "$SRCDIR/tests/live/lib.sh"
debdir=$(realpath "$1")
version=$(sed -n 's/^project(ltap VERSION \([0-9.]*\).*/\1/p' "$SRCDIR/CMakeLists.txt")
packages=(ltap libltap0 libltap-dev lua-ltap)
debs=()
for p in "${packages[@]}"; do
  debs+=("$debdir/${p}_${version}-1_amd64.deb")
  [ -f "${debs[-1]}" ] || fail "no ${debs[-1]} (tests/shipping/package.sh makes it)"
done
export DEBIAN_FRONTEND=noninteractive
apt_new=()
ours() { [[ " ${packages[*]} " == *" $1 "* ]]; }
restore() {
  local left=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qv not-installed && left+=("$p")
  done
  if [ ${#left[@]} -gt 0 ]; then
    echo "restoring: purging ${left[*]}"
    dpkg --purge "${left[@]}" >/dev/null || echo "FAIL: could not purge ${left[*]}: dpkg --purge them by hand"
  fi
  local extra=()
  for p in "${apt_new[@]}"; do ours "$p" || extra+=("$p"); done
  if [ ${#extra[@]} -gt 0 ]; then
    echo "restoring: purging what apt installed with them: ${extra[*]}"
    apt-get -o DPkg::Lock::Timeout=600 purge -y -q "${extra[@]}" >/dev/null || echo "FAIL: could not purge ${extra[*]}"
  fi
}
trap 'restore; kill_started; [ -z "${OWN_WORK:-}" ] || rm -rf "$WORK"' EXIT

# apt_install WANT FILE...: apt install ./FILE..., as docs/building.md says;
# apt must install exactly the packages WANT names, which the trap notes
apt_install() {
  local want=$1 got; shift
  apt-get -o DPkg::Lock::Timeout=600 install -y "$@" > "$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt install $*"; }
  mapfile -t got < <(awk '/^The following NEW packages will be installed:/ { on = 1; next }
                          on && /^  / { for (i = 1; i <= NF; i++) print $i; next } { on = 0 }' "$WORK/apt.log")
  apt_new+=("${got[@]}")
  expect_eq "packages apt installed" "$want" "$(printf '%s\n' "${got[@]}" | sort | paste -sd' ')"
  for p in $want; do expect_eq "$p: dpkg status" "installed" "$(dpkg-query -W -f '${db:Status-Status}' "$p")"; done
}
# the command: ltap and the library it links, nothing else of ours
apt_install "libltap0 ltap" "${debs[0]}" "${debs[1]}"
expect_eq "ltap on PATH" /usr/bin/ltap "$(command -v ltap)"
expect_grep "ltap --version" "^ltap $version( \(git [0-9a-f]{12}(-dirty)?\))?$" <(/usr/bin/ltap --version)

# ltap pagealloc -d 2s, system-wide, while a workload allocates 20000 pages
# (LTAP is the engine's pidnote: LTAP_BIN says which ltap it runs)
LTAP_BIN=/usr/bin/ltap "$LTAP" -v pagealloc -d 2s > "$WORK/out" 2> "$WORK/err" &
pid=$!
STARTED+=($pid)
wait_attached "$WORK/err"
"$PROGS/touch_pages" 20000
wait $pid || fail "ltap pagealloc -d 2s exited $?"
expect_grep "pagealloc's header" '^#Pages Allocated          Process Name$' "$WORK/out"
n=$(awk '$2 == "touch_pages" { n += $1 } END { print n + 0 }' "$WORK/out")
[ "$n" -ge 20000 ] || { cat "$WORK/out"; fail "touch_pages: $n pages, expected at least 20000"; }
echo "ok: touch_pages: $n pages (at least 20000)"

# the manual pages, found by man in the installed package, render without a warning
for page in ltap ltap-lua; do
  MANWIDTH=80 man --warnings "$page" > "$WORK/man.out" 2> "$WORK/man.err" || fail "man $page exited $?"
  [ ! -s "$WORK/man.err" ] || { cat "$WORK/man.err"; fail "man --warnings $page warns"; }
  expect_grep "man $page: NAME" "^       $page - " "$WORK/man.out"
done

# the library's faces: Debian's own lua5.4 finds the module, pkg-config the library
apt_install "libltap-dev lua-ltap" "${debs[2]}" "${debs[3]}"
expect_eq 'lua5.4: require "ltap"' "$version" "$(lua5.4 -e 'print(require("ltap").version)')"
expect_eq "pkg-config --modversion ltap" "$version" "$(pkg-config --modversion ltap)"

# removed cleanly: dpkg knows none of them, and none of their files is left
for deb in "${debs[@]}"; do dpkg-deb -c "$deb"; done | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$WORK/files"
apt-get -o DPkg::Lock::Timeout=600 purge -y "${packages[@]}" > "$WORK/purge.log" 2>&1 ||
  { cat "$WORK/purge.log"; fail "apt purge ${packages[*]}"; }
for p in "${packages[@]}"; do
  if dpkg -L "$p" > "$WORK/left" 2>/dev/null; then cat "$WORK/left"; fail "dpkg -L $p still lists files"; fi
  [ ! -e "/usr/share/doc/$p" ] || fail "left behind: /usr/share/doc/$p"
done
left=$(while read -r f; do [ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"; done < "$WORK/files")
[ -z "$left" ] || fail "left behind: $left"
echo "ok: removed, dpkg -L empty, none of their $(wc -l < "$WORK/files") files left"

# package_install.sh DEBDIR: the package tests/shipping/package.sh built,
# installed on this machine as a user would (apt install ./ltap_*.deb),
# used (ltap --version, ltap pagealloc -d 2s counting a workload, man ltap,
# man ltap-lua), then purged: dpkg knows no ltap and none of its files is
# left. Run by the engine (tests/shipping/package.test, REQUIRES
# no_ltap_package: an ltap someone else installed is not ours to touch).
# Whatever happens, the machine's packages end as they were: the trap
# purges ltap and what apt installed with it (none here: make.sh installed
# its libraries already).
. "$SRCDIR/tests/live/lib.sh"
debdir=$(realpath "$1")
version=$(sed -n 's/^project(ltap VERSION \([0-9.]*\).*/\1/p' "$SRCDIR/CMakeLists.txt")
deb=$debdir/ltap_${version}-1_amd64.deb
[ -f "$deb" ] || fail "no $deb (tests/shipping/package.sh makes it)"
export DEBIAN_FRONTEND=noninteractive
apt_new=()
restore() {
  if dpkg-query -W -f '${db:Status-Status}' ltap 2>/dev/null | grep -qv not-installed; then
    echo "restoring: purging ltap"
    dpkg --purge ltap >/dev/null || echo "FAIL: could not purge ltap: dpkg --purge ltap by hand"
  fi
  local extra=()
  for p in "${apt_new[@]}"; do [ "$p" == ltap ] || extra+=("$p"); done
  if [ ${#extra[@]} -gt 0 ]; then
    echo "restoring: purging what apt installed with ltap: ${extra[*]}"
    apt-get -o DPkg::Lock::Timeout=600 purge -y -q "${extra[@]}" >/dev/null || echo "FAIL: could not purge ${extra[*]}"
  fi
}
trap 'restore; kill_started; [ -z "${OWN_WORK:-}" ] || rm -rf "$WORK"' EXIT

# apt install ./FILE, as the docs say; what it installs is noted for the trap
apt-get -o DPkg::Lock::Timeout=600 install -y "$deb" > "$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt install $deb"; }
mapfile -t apt_new < <(awk '/^The following NEW packages will be installed:/ { on = 1; next }
                             on && /^  / { for (i = 1; i <= NF; i++) print $i; next } { on = 0 }' "$WORK/apt.log")
expect_eq "packages apt installed" "ltap" "${apt_new[*]}"
expect_eq "dpkg status" "installed" "$(dpkg-query -W -f '${db:Status-Status}' ltap)"
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

# removed cleanly: dpkg knows nothing of ltap, and none of its files is left
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$WORK/files"
apt-get -o DPkg::Lock::Timeout=600 purge -y ltap > "$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "apt purge ltap"; }
if dpkg -L ltap > "$WORK/left" 2>/dev/null; then cat "$WORK/left"; fail "dpkg -L ltap still lists files"; fi
left=$(while read -r f; do [ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"; done < "$WORK/files")
[ -z "$left" ] || fail "left behind: $left"
[ ! -e /usr/share/doc/ltap ] || fail "left behind: /usr/share/doc/ltap"
echo "ok: removed, dpkg -L empty, none of its $(wc -l < "$WORK/files") files left"

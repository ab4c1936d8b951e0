#!/bin/bash
# package.sh SRCDIR OUTDIR: the Debian package, built as `./make.sh deb`
# builds it (dist/deb.sh) into OUTDIR, then checked:
#   - its control fields: name, version (CMakeLists.txt's project()), and
#     Depends covering the package of every library the binary links
#     (dpkg-shlibdeps made them; here each NEEDED soname is looked up with
#     dpkg -S and must be there, with lua-dkjson, which no ELF file shows);
#   - its files: exactly what `cmake --install` of the same build puts
#     under /usr, plus the files Debian wants of a package (copyright,
#     changelog.Debian.gz, lintian overrides);
#   - lintian: no error and no warning (pedantic and info tags are shown;
#     the accepted ones are overridden in dist/deb/ltap.lintian-overrides,
#     each with its reason).
# tests/shipping/package.test then installs it on this machine.
set -euo pipefail
src=$1 out=$2
version=$(sed -n 's/^project(ltap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ltap-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

deb=$("$src/dist/deb.sh" "$out")
[[ $deb == "$out/ltap_${version}-1_amd64.deb" ]] || fail "dist/deb.sh made '$deb', not ltap_${version}-1_amd64.deb"
echo "ok: built $deb"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == ltap && $(field Version) == "$version-1" ]] || fail "Package $(field Package), Version $(field Version)"
depends=$(field Depends)
echo "ok: Depends: $depends"
mkdir "$work/x"
dpkg-deb -x "$deb" "$work/x"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for so in $(readelf -d "$work/x/usr/bin/ltap" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  # the library the loader finds (merged /usr: dpkg knows one of the two names)
  pkg=$( (dpkg -S "/lib/$ma/$so" || dpkg -S "/usr/lib/$ma/$so") 2>/dev/null | head -1 | cut -d: -f1)
  [[ -n $pkg ]] || fail "no installed package has $so in /lib/$ma or /usr/lib/$ma"
  [[ ", $depends," == *", $pkg "* || ", $depends," == *", $pkg,"* ]] || fail "$so is in $pkg, which Depends lacks"
done
[[ ", $depends," == *", lua-dkjson,"* ]] || fail "Depends lacks lua-dkjson (require \"dkjson\": --format json)"
echo "ok: every NEEDED library's package and lua-dkjson are in Depends"

# the files: the package = cmake --install of the same build + Debian's own
DESTDIR="$work/inst" cmake --install "$out" --prefix /usr >/dev/null
(cd "$work/inst" && find . -type f -o -type l) | sed 's|^\.||' | sort > "$work/installed"
{ cat "$work/installed"; printf '%s\n' /usr/share/doc/ltap/copyright /usr/share/doc/ltap/changelog.Debian.gz \
    /usr/share/lintian/overrides/ltap; } | sort > "$work/want"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||' | sort > "$work/got"
diff "$work/want" "$work/got" >"$work/diff" || { cat "$work/diff"; fail "the package's files are not cmake --install's (< install, > package)"; }
echo "ok: the package holds what cmake --install installs ($(wc -l < "$work/installed") files) and Debian's 3"

# lintian as an unprivileged user (it warns when run as root), if it can read the package
runas=()
chmod 755 "$work"
if setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$deb" 2>/dev/null; then
  runas=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$work")
fi
# (--show-overrides with --fail-on exits 2 on an override: the tags decide)
"${runas[@]}" lintian --display-level '>=pedantic' --display-experimental --show-overrides "$deb" > "$work/lintian" 2>&1 ||
  { cat "$work/lintian"; fail "lintian did not run"; }
echo "--- lintian $(lintian --version | awk '{print $2}'), pedantic and experimental tags, overrides (O:) shown:"
cat "$work/lintian"
echo "---"
! grep -qE '^[EW]: ' "$work/lintian" || fail "lintian: errors (E:) or warnings (W:)"
echo "ok: lintian: no error, no warning"

#!/bin/bash
# package.sh SRCDIR OUTDIR: the Debian packages (ltap, libltap0,
# libltap-dev, lua-ltap), built as `./make.sh deb` builds them
# (dist/deb.sh) into OUTDIR, then checked:
#   - their control fields: names, version (CMakeLists.txt's project()),
#     and Depends covering the package of every library their ELF files
#     link (dpkg-shlibdeps made them; here each NEEDED soname is looked up
#     with dpkg -S and must be there; libltap.so.0 is libltap0's, at this
#     very version), and lua-dkjson, which no ELF file shows, where libltap's
#     code is;
#   - their files: exactly what `cmake --install` of the same build puts
#     under /usr, plus the files Debian wants of each package (copyright,
#     changelog.Debian.gz, lintian overrides);
#   - libltap0's symbols file: the library's exports, each at its node;
#   - lintian: no error and no warning (pedantic, info and experimental
#     tags are shown; the accepted ones are overridden, each with its
#     reason, dist/deb/lintian-overrides.in).
# tests/shipping/package.test then installs them on this machine.
set -euo pipefail
src=$1 out=$2
version=$(sed -n 's/^project(ltap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
packages="ltap libltap0 libltap-dev lua-ltap"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ltap-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$src/dist/deb.sh" "$out" > "$work/made"
for p in $packages; do
  deb=$out/${p}_${version}-1_amd64.deb
  grep -qx "$deb" "$work/made" || fail "dist/deb.sh did not make $deb: $(cat "$work/made")"
done
[ "$(wc -l < "$work/made")" == 4 ] || fail "dist/deb.sh made other packages: $(cat "$work/made")"
echo "ok: built $packages ($version-1)"

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for p in $packages; do
  deb=$out/${p}_${version}-1_amd64.deb
  field() { dpkg-deb -f "$deb" "$1"; }
  [[ $(field Package) == "$p" && $(field Version) == "$version-1" ]] || fail "$p: Package $(field Package), Version $(field Version)"
  depends=$(field Depends)
  has() { [[ ", $depends," == *", $1 "* || ", $depends," == *", $1,"* ]]; }
  rm -rf "$work/x"
  mkdir "$work/x"
  dpkg-deb -x "$deb" "$work/x"
  while read -r elf; do
    for so in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      if [ "$so" == libltap.so.0 ]; then
        has "libltap0 (= $version-1)" || fail "$p: ${elf#$work/x} links libltap.so.0, Depends lacks libltap0 (= $version-1)"
        continue
      fi
      # the library the loader finds (merged /usr: dpkg knows one of the two names)
      pkg=$( (dpkg -S "/lib/$ma/$so" || dpkg -S "/usr/lib/$ma/$so") 2>/dev/null | head -1 | cut -d: -f1)
      [[ -n $pkg ]] || fail "$p: no installed package has $so in /lib/$ma or /usr/lib/$ma"
      has "$pkg" || fail "$p: ${elf#$work/x} links $so of $pkg, which Depends lacks ($depends)"
    done
  done < <(find "$work/x" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
  case $p in libltap0|lua-ltap) has lua-dkjson || fail "$p: Depends lacks lua-dkjson (libltap's JSON)";; esac
  echo "ok: $p Depends: $depends"
done

# libltap0's symbols file: exactly the library's exported symbols, each at
# its version node, the names that are not ltap_* API (optional)
rm -rf "$work/x" && mkdir "$work/x"
dpkg-deb -R "$out/libltap0_${version}-1_amd64.deb" "$work/x"
[ -f "$work/x/DEBIAN/symbols" ] || fail "libltap0 has no symbols file"
head -2 "$work/x/DEBIAN/symbols" > "$work/symhead"
printf 'libltap.so.0 libltap0 #MINVER#\n* Build-Depends-Package: libltap-dev\n' | diff - "$work/symhead" ||
  fail "libltap0's symbols file: a wrong first line or no Build-Depends-Package"
sed -n 's/^ \((optional)\)\{0,1\}\([^ ]*\) [0-9.]*$/\2/p' "$work/x/DEBIAN/symbols" | sort > "$work/symfile"
nm -D --defined-only --with-symbol-versions "$work"/x/usr/lib/"$ma"/libltap.so.0.* |
  awk '$2 == "A" { print $3 "@" $3; next } { sub("@@", "@", $3); print $3 }' | sort > "$work/symlib"
[ -s "$work/symlib" ] || fail "libltap.so.0 exports nothing"
diff "$work/symlib" "$work/symfile" >"$work/diff" ||
  { cat "$work/diff"; fail "libltap0's symbols file is not the library's exports (< library, > symbols)"; }
if sed 1,2d "$work/x/DEBIAN/symbols" | grep -v -e '^ ltap_' -e '^ LTAP_' | grep -qv '^ (optional)'; then
  fail "a symbol that is not ltap's API is not (optional) in libltap0's symbols"
fi
# and dpkg-gensymbols, at its strictest (-c4), finds it equal to what it would write
mkdir -p "$work/gs/debian"
mv "$work/x" "$work/gs/debian/libltap0"
cp "$work/gs/debian/libltap0/DEBIAN/symbols" "$work/gs/debian/libltap0.symbols"
printf 'ltap (%s-1) unstable; urgency=low\n\n  * check\n\n -- ltap <ltap@localhost>  Thu, 01 Jan 1970 00:00:00 +0000\n' \
  "$version" > "$work/gs/debian/changelog"
printf 'Source: ltap\n\nPackage: libltap0\nArchitecture: any\n' > "$work/gs/debian/control"
(cd "$work/gs" && dpkg-gensymbols -plibltap0 -Pdebian/libltap0 -c4 -O"$work/gs/out") >"$work/gensym" 2>&1 ||
  { cat "$work/gensym"; fail "dpkg-gensymbols -c4: libltap0's symbols file differs from the library"; }
echo "ok: libltap0's symbols file lists its $(wc -l < "$work/symlib") exported symbols (dpkg-gensymbols -c4 agrees)"

# the files: the packages = cmake --install of the same build + Debian's own
DESTDIR="$work/inst" cmake --install "$out" --prefix /usr >/dev/null
(cd "$work/inst" && find . -type f -o -type l) | sed 's|^\.||' | sort > "$work/installed"
{ cat "$work/installed"
  for p in $packages; do
    printf '%s\n' /usr/share/doc/$p/copyright /usr/share/doc/$p/changelog.Debian.gz /usr/share/lintian/overrides/$p
  done; } | sort > "$work/want"
for p in $packages; do
  dpkg-deb -c "$out/${p}_${version}-1_amd64.deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||'
done | sort > "$work/got"
diff "$work/want" "$work/got" >"$work/diff" || { cat "$work/diff"; fail "the packages' files are not cmake --install's (< install, > packages)"; }
echo "ok: the packages hold what cmake --install installs ($(wc -l < "$work/installed") files) and Debian's 3 each"

# lintian as an unprivileged user (it warns when run as root), if it can read the packages
runas=()
chmod 755 "$work"
if setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$out/ltap_${version}-1_amd64.deb" 2>/dev/null; then
  runas=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$work")
fi
# (--show-overrides with --fail-on exits 2 on an override: the tags decide)
"${runas[@]}" lintian --display-level '>=pedantic' --display-experimental --show-overrides \
  $(for p in $packages; do echo "$out/${p}_${version}-1_amd64.deb"; done) > "$work/lintian" 2>&1 ||
  { cat "$work/lintian"; fail "lintian did not run"; }
echo "--- lintian $(lintian --version | awk '{print $2}'), pedantic, info and experimental tags, overrides (O:) shown:"
cat "$work/lintian"
echo "---"
! grep -qE '^[EW]: ' "$work/lintian" || fail "lintian: errors (E:) or warnings (W:)"
echo "ok: lintian: no error, no warning"

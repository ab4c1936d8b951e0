# chromium.sh: a page of checks run in headless Chromium, for the browser
# tests (sourced; they define fail and run in their work directory). The
# page's script appends <pre id="result">NAME=true NAME=false ...</pre>.
#   browser_checks PAGE N   loads PAGE; fails unless it reports N checks, all true
browser_checks() {
  local page=$1 n=$2 browser result
  browser=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$browser" ] || fail "chromium is not installed (make.sh installs it)"
  timeout 90 "$browser" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --allow-file-access-from-files \
    --virtual-time-budget=10000 --user-data-dir="$PWD/profile" --dump-dom "file://$PWD/$page" > dom 2> browser.err
  result=$(sed -n 's/.*<pre id="result">\(.*\)<\/pre>.*/\1/p' dom)
  [ -n "$result" ] || { tail -5 browser.err; fail "browser: no result"; }
  echo "in Chromium: $result"
  case " $result" in *=false*) fail "browser: a check failed" ;; esac
  [ $(echo "$result" | wc -w) -eq "$n" ] || fail "browser: expected $n checks"
}

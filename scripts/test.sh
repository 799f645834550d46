#!/usr/bin/env bash
# Everything a fresh machine needs to pass every test: system packages, npm packages, the
# production build, then type check, lint, unit tests and the end-to-end tests (JavaScript on and
# off, and the operational tests), side by side.
# Ends with one line: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The same Chromium as a headless shell: what the end-to-end tests run (playwright.config.ts).
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# The real image (podman builds and runs it; debootstrap makes the stand-in base image), a caching
# proxy for the CDN tests, and a second browser engine (WebKitGTK's WebDriver).
command -v podman >/dev/null 2>&1 || need+=(podman runc)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v varnishd >/dev/null 2>&1 || need+=(varnish)
# The reverse proxies whose shipped configurations (deploy/) tests/ops/proxy.spec.ts runs.
command -v nginx >/dev/null 2>&1 || need+=(nginx)
command -v caddy >/dev/null 2>&1 || need+=(caddy)
command -v WebKitWebDriver >/dev/null 2>&1 || need+=(webkit2gtk-driver)
# WebKitGTK needs a display: tests/webkit.spec.ts gives it a virtual one.
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
install() {
  echo "==> installing Debian packages: $*"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null || { echo "could not install $*"; exit 1; }
}
[ ${#need[@]} -eq 0 ] || install "${need[@]}"
# promtool tests the alert rules (prometheus-rules.test.yaml); without prometheus's recommended
# node exporter, a service of its own.
command -v promtool >/dev/null 2>&1 || install --no-install-recommends prometheus

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# `npm install`, not `npm ci`: see docs/decisions/0003-npm-install-not-ci.md
echo "==> npm install"
npm install --no-audit --no-fund || exit 1
# The machine's own node may be older: npm installs Node 24 LTS as a devDependency (decision 0011),
# and every step below runs on it.
export PATH="$PWD/node_modules/.bin:$PATH"
echo "==> node $(node -v)"
case "$(node -v)" in v24.*) ;; *) echo "FAILED: expected Node 24 from node_modules/.bin"; exit 1 ;; esac

mkdir -p reports
rm -f reports/unit.json reports/e2e.json reports/*.log

# The build first (seconds); then types, lint, unit tests and the end-to-end tests side by side:
# none needs another's result, and most of their time is spent waiting. The three checks write
# to logs, shown as each ends; Playwright's progress shows as it runs.
echo "==> npm run build"
if ! npm run build; then
  echo "FAILED: npm run build"
  node scripts/count-tests.mjs reports/unit.json reports/e2e.json 1
  exit 1
fi
declare -A jobs
check() { local name=$1; shift; ("$@" >"reports/$name.log" 2>&1) & jobs[$name]=$!; }
check types npx tsc
check lint npm run lint
check unit npx vitest run --reporter=default --reporter=json --outputFile=reports/unit.json
echo "==> npx playwright test (alongside types, lint and unit tests)"
npx playwright test
status=$?
[ $status -eq 0 ] || echo "FAILED: npx playwright test"
for name in types lint unit; do
  wait "${jobs[$name]}"
  code=$?
  echo "==> $name"
  cat "reports/$name.log"
  [ $code -eq 0 ] || { echo "FAILED: $name"; status=1; }
done

node scripts/count-tests.mjs reports/unit.json reports/e2e.json $status

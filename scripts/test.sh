#!/usr/bin/env bash
# Everything a fresh machine needs to pass every test: system packages, npm packages, the
# production build and the container image, then type check, lint, unit tests and the end-to-end
# tests (JavaScript on and off, and the operational tests), side by side. Nothing it starts
# outlives it: it ends by checking so, and fails naming what is still running.
# Ends with one line: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

# This run's id, carried by every process it starts (scripts/test-run.mjs); first, stop what an
# earlier run that was killed left running (its servers would hold ports and CPU). Any node will
# do for that script.
AGENCY_TEST_RUN=$(node scripts/test-run.mjs new $$) || exit 1
export AGENCY_TEST_RUN
node scripts/test-run.mjs reap
# Stopped midway (Ctrl-C, a CI time limit): stop what the run started too.
trap 'node scripts/test-run.mjs check "$AGENCY_TEST_RUN" >/dev/null; exit 130' INT TERM

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The same Chromium as a headless shell: what the end-to-end tests run (playwright.config.ts).
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
# The tests' own PostgreSQL clusters (tests/support/postgres.ts); Debian keeps its programs off PATH.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
# The real image (podman builds and runs it; debootstrap makes the stand-in base image), a caching
# proxy for the CDN tests, and a second browser engine (WebKitGTK's WebDriver).
command -v podman >/dev/null 2>&1 || need+=(podman runc)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
# compose.yaml as an operator runs it (tests/ops/compose.spec.ts).
command -v podman-compose >/dev/null 2>&1 || need+=(podman-compose)
command -v varnishd >/dev/null 2>&1 || need+=(varnish)
# The reverse proxies whose shipped configurations (deploy/) tests/ops/proxy.spec.ts runs.
command -v nginx >/dev/null 2>&1 || need+=(nginx)
command -v caddy >/dev/null 2>&1 || need+=(caddy)
command -v WebKitWebDriver >/dev/null 2>&1 || need+=(webkit2gtk-driver)
# WebKitGTK needs a display: tests/webkit.spec.ts gives it a virtual one.
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb)
# The text browsers tests/text-browsers.spec.ts hands the pages to.
command -v lynx >/dev/null 2>&1 || need+=(lynx)
command -v w3m >/dev/null 2>&1 || need+=(w3m)
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

# The build first (seconds), then the container image the image tests run: minutes on a new
# machine (a stand-in base image, then every layer), seconds once podman has its layers. Done
# before the tests, not beside them, so it never starves them of CPU.
echo "==> npm run build"
if ! npm run build; then
  echo "FAILED: npm run build"
  node scripts/count-tests.mjs reports/unit.json reports/e2e.json 1
  exit 1
fi
echo "==> the container image (podman)"
started=$SECONDS
if ! node scripts/container/test-image.mjs; then
  echo "FAILED: the container image"
  node scripts/count-tests.mjs reports/unit.json reports/e2e.json 1
  exit 1
fi
echo "    built in $((SECONDS - started)) s"

# Then types, lint, unit tests and the end-to-end tests side by side: none needs another's
# result, and most of their time is spent waiting. Types and lint run at a lower priority: they
# have no clock to beat, while the tests drive servers, PostgreSQL and browsers that do (the unit
# tests too: niced, they and their PostgreSQL starved on a busy machine). The checks write to logs,
# shown as each ends; Playwright's progress shows as it runs.
declare -A jobs
check() { local name=$1; shift; ("$@" >"reports/$name.log" 2>&1) & jobs[$name]=$!; }
check types nice -n 10 npx tsc
check lint nice -n 10 npm run lint
check unit npx vitest run --reporter=default --reporter=json --outputFile=reports/unit.json
echo "==> npx playwright test (alongside types, lint and unit tests)"
npx playwright test
status=$?
failed_steps=0
[ $status -eq 0 ] || echo "FAILED: npx playwright test"
for name in types lint unit; do
  wait "${jobs[$name]}"
  code=$?
  echo "==> $name"
  cat "reports/$name.log"
  # A failed check counts as a failed test; a failed unit test is counted by its own report.
  [ $code -eq 0 ] || { echo "FAILED: $name"; status=1; [ "$name" = unit ] || failed_steps=$((failed_steps + 1)); }
done

# Nothing the run started may outlive it: each server, proxy, PostgreSQL and browser ends with its test.
node scripts/test-run.mjs check "$AGENCY_TEST_RUN" || { status=1; failed_steps=$((failed_steps + 1)); }

node scripts/count-tests.mjs reports/unit.json reports/e2e.json $status $failed_steps

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROME_FLAGS } from "./scripts/perf/chrome.mjs";
import { sites } from "./tests/support/sites";

/**
 * End-to-end tests run against the production build (`npm start`). Each browser project gets its
 * own server and its own fake form service, so the JavaScript-on and -off runs never share state;
 * tests within a project are isolated by their own client address and form-service token, so
 * every test may run beside any other (fullyParallel).
 *
 * Which project runs a test is said by its tags, so nothing is collected only to be skipped:
 * - `@needs-js`: a JavaScript enhancement (focus moved by script, steps in the browser): js only.
 * - `@without-js`: what only a browser without JavaScript gets (step pages): no-js only.
 * - `@once`: the same for every browser (HTTP, headers, CSS): js only.
 * - `@for-the-eye`: screenshots to look at, no assertion of their own: only with SCREENSHOTS=1.
 * Operational tests (tests/ops: real processes, the image, PostgreSQL, trickles) are the `ops` project,
 * listed first so its long tests start first, on at most three workers in four: it is the run's long pole
 * (most of its time waiting on processes), and the rest keep the browser tests going beside it.
 */
const eye = process.env.SCREENSHOTS ? [] : [/@for-the-eye/];
/**
 * Most of a test's time is spent waiting (on a server, a browser, a timeout), so a core holds more
 * than one worker; but each worker drives a browser or servers of its own, and three a core
 * overloaded a slower machine of this kind (load 12-21 on 2 cores) until tests that wait on a
 * clock failed. Two a core, measured on idle and busy machines in perf/test-suite.md.
 */
const WORKERS_PER_CORE = 2;
/**
 * Debian's build of Chromium's headless shell: the same version and engine as its `chromium`,
 * without the browser's UI layer, and what Playwright itself runs for headless Chromium. Here it
 * loads a page for less than half the CPU (perf/test-suite.md). CHROME_PATH overrides.
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const browser = {
  ...devices["Desktop Chrome"],
  viewport: { width: 1280, height: 800 },
  launchOptions: {
    executablePath: process.env.CHROME_PATH || (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium"),
    // The perf scripts' quiet headless flags (Playwright adds its own headless one).
    args: [...CHROME_FLAGS.filter((f) => f !== "--headless"), "--disable-quic"],
  },
};

// Anchored at this folder: a bare "ops/**" also matches a checkout whose own path has an ops/ in it.
const OPS = `${resolve(import.meta.dirname, "tests/ops")}/**`;

export default defineConfig({
  testDir: "tests",
  testMatch: "**/*.spec.ts",
  fullyParallel: true,
  // WORKERS_PER_CORE a core (above). E2E_WORKERS overrides.
  workers: Number(process.env.E2E_WORKERS) || Math.max(2, availableParallelism() * WORKERS_PER_CORE),
  retries: 0,
  forbidOnly: !!process.env.CI,
  // Limits that tell a hang from a slow machine: a test here takes 1-15 s on an idle machine of
  // this kind, and these still hold on one four times as slow and busy (perf/test-suite.md).
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // The JSON report feeds the closing line of scripts/test.sh (outside test-results/, which
  // Playwright empties at start).
  reporter: [["list"], ["json", { outputFile: "reports/e2e.json" }]],
  globalSetup: "./tests/support/global-setup.ts",
  // A failing test keeps its trace: DOM snapshots, no screencast (recording one for every test
  // cost a fifth of the suite's CPU). `--trace=on` records everything.
  use: { ...browser, trace: { mode: "retain-on-failure", screenshots: false } },
  projects: [
    // Half the workers at most: the operational tests mostly wait (a paused process, a trickle,
    // a chaos run's faults), and given every worker at the start they left the CPU 20-85 % idle
    // for its first 80 s. Capped, the browser tests run beside them from the first second
    // (perf/test-suite.md). Playwright takes the files in name order, each file's tests in its
    // own, so a spec puts its longest test first; and none lasts much past a minute (the long
    // runs at full length are `npm run soak`'s), so no operational test is left alone at the end.
    { name: "ops", testMatch: OPS, workers: Math.max(1, Math.ceil((availableParallelism() * WORKERS_PER_CORE * 3) / 4)), use: { baseURL: sites.js.url } },
    { name: "js", testIgnore: OPS, grepInvert: [/@without-js/, ...eye], use: { baseURL: sites.js.url, javaScriptEnabled: true } },
    { name: "no-js", testIgnore: OPS, grepInvert: [/@needs-js|@once/, ...eye], use: { baseURL: sites.noJs.url, javaScriptEnabled: false } },
  ],
  webServer: Object.values(sites).map((site) => ({
    command: site.command,
    url: site.ready,
    // The full-disk site unmounts its file system on SIGTERM (tests/support/full-disk-site.mjs).
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "ignore" as const,
    stderr: "pipe" as const,
    env: site.env,
  })),
});

import { defineConfig, devices } from "@playwright/test";
import { sites } from "./tests/support/sites";

/**
 * End-to-end tests run against the production build (`npm start`). Each project gets its own
 * server and its own fake form service, so the JavaScript-on and -off runs never share state.
 */
export default defineConfig({
  testDir: "tests",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 45_000,
  expect: { timeout: 8_000 },
  // The JSON report feeds the closing line of scripts/test.sh (outside test-results/, which
  // Playwright empties at start).
  reporter: [["list"], ["json", { outputFile: "reports/e2e.json" }]],
  globalSetup: "./tests/support/global-setup.ts",
  use: {
    ...devices["Desktop Chrome"],
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
    trace: "retain-on-failure",
  },
  projects: [
    { name: "js", use: { baseURL: sites.js.url, javaScriptEnabled: true } },
    { name: "no-js", use: { baseURL: sites.noJs.url, javaScriptEnabled: false } },
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

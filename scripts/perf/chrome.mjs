/**
 * The flags every Chromium of the tests and of `npm run perf` starts with (Lighthouse's runs, the
 * script counts, playwright.config.ts). A module of its own so that none of them needs Lighthouse,
 * which only `npm run perf` installs (scripts/perf/lighthouse/run.mjs).
 */
export const CHROME_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

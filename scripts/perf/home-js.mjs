/**
 * The scripts a page loads, in bytes on the wire, counted as `npm run perf` and
 * tests/budgets.spec.ts count them (scripts/perf/page-scripts.mjs); the home page's total is what
 * perf/budgets.json's `homeJsBytes` bounds. Starts the built server itself: run `npm run build` first.
 *
 *   node scripts/perf/home-js.mjs                 the home page
 *   node scripts/perf/home-js.mjs /work /privacy  other pages, one after another
 *
 * PERF_PORT (default 3400) and CHROME_PATH (default /usr/bin/chromium), as for `npm run perf`.
 * The bundles' names are hashes of their content, so a few bytes move between builds of the same
 * code; compare figures from one checkout.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { REPO, serve } from "../serve.mjs";
import { CHROME_FLAGS } from "./chrome.mjs";
import { pageScripts } from "./page-scripts.mjs";

const budget = JSON.parse(readFileSync(join(REPO, "perf/budgets.json"), "utf8")).homeJsBytes;
const paths = process.argv.length > 2 ? process.argv.slice(2) : ["/"];
const site = serve(Number(process.env.PERF_PORT || 3400));
try {
  await site.listening;
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    args: CHROME_FLAGS.filter((f) => f !== "--headless"),
  });
  try {
    for (const path of paths) {
      const scripts = await pageScripts(browser, site.url + path);
      const total = scripts.reduce((sum, s) => sum + s.bodyBytes, 0);
      console.log(
        `${path}: ${total.toLocaleString("en-US")} B in ${scripts.length} scripts${path === "/" ? ` (budget ${budget.toLocaleString("en-US")} B)` : ""}`,
      );
      for (const s of scripts) console.log(`  ${String(s.bodyBytes).padStart(7)} ${s.encoding.padEnd(8)} ${s.url.slice(site.url.length)}`);
    }
  } finally {
    await browser.close();
  }
} finally {
  site.kill();
}

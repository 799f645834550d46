/**
 * Lighthouse (mobile preset, simulated throttling: its defaults) against one URL, through its own
 * CLI in a child process with Debian's Chromium. Returns the four category scores (0-100) and the
 * lab metrics of one run. `skipAudits`: audits a page fails on purpose (perf/budgets.json says which).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const cli = join(require.resolve("lighthouse/package.json"), "..", "cli", "index.js");

export const CHROME_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/**
 * One run; a run Lighthouse itself reports as broken (e.g. NO_NAVSTART, a lost trace, a page load
 * Chromium refused) is retried twice, 5 s apart, so that a passing glitch has time to pass.
 */
export async function lighthouseRun(url, options = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lighthouseOnce(url, options);
    } catch (error) {
      if (attempt >= 3) throw error;
      console.error(`    retrying: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
}

async function lighthouseOnce(url, { chromePath = process.env.CHROME_PATH || "/usr/bin/chromium", skipAudits = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "perf-lh-"));
  const out = join(dir, "report.json");
  try {
    await new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [
          cli,
          url,
          "--quiet",
          `--chrome-flags=${CHROME_FLAGS.join(" ")}`,
          `--only-categories=${CATEGORIES.join(",")}`,
          "--output=json",
          `--output-path=${out}`,
          ...(skipAudits.length ? [`--skip-audits=${skipAudits.join(",")}`] : []),
        ],
        { env: { ...process.env, CHROME_PATH: chromePath }, maxBuffer: 16 * 1024 * 1024 },
        (error, _stdout, stderr) => (error ? reject(new Error(`lighthouse ${url} failed: ${stderr || error.message}`)) : resolve()),
      );
    });
    const report = JSON.parse(readFileSync(out, "utf8"));
    if (report.runtimeError) throw new Error(`lighthouse ${url}: ${report.runtimeError.message}`);
    const metric = (id) => report.audits[id]?.numericValue ?? null;
    const failing = Object.values(report.categories)
      .flatMap((c) => c.auditRefs.filter((r) => r.weight > 0).map((r) => report.audits[r.id]))
      .filter((a) => a && a.score !== null && a.score < 1)
      .map((a) => a.id);
    return {
      version: report.lighthouseVersion,
      formFactor: report.configSettings.formFactor,
      throttlingMethod: report.configSettings.throttlingMethod,
      scores: Object.fromEntries(CATEGORIES.map((id) => [id, Math.round((report.categories[id]?.score ?? 0) * 100)])),
      metrics: {
        fcp: metric("first-contentful-paint"),
        lcp: metric("largest-contentful-paint"),
        tbt: metric("total-blocking-time"),
        cls: metric("cumulative-layout-shift"),
        si: metric("speed-index"),
      },
      failing: [...new Set(failing)],
      warnings: report.runWarnings,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Lighthouse (mobile preset, simulated throttling: its defaults) against one URL, through its own
 * CLI in a child process with Debian's Chromium. Returns the four category scores (0-100) and the
 * lab metrics of one run. `skipAudits`: audits a page fails on purpose (perf/budgets.json says which);
 * `categories`: fewer than the four, for a run that is only compared (another commit, no scripts).
 *
 * Lighthouse is not one of the site's packages but this folder's, with its own lockfile: it wants
 * Node >= 22, and npm checks that against the node npm itself runs on, often an older one on a
 * newcomer's machine (decision 0011). Only `npm run perf` needs it, so it is installed here, on
 * first use, by npm run on this process's node: the pinned Node 24.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROME_FLAGS } from "../chrome.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const require = createRequire(import.meta.url);
export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/**
 * One run; a run Lighthouse itself reports as broken (e.g. NO_NAVSTART, a lost trace, a page load
 * Chromium refused) is retried twice, 5 s apart, so that a passing glitch has time to pass.
 */
export async function lighthouseRun(url, options = {}) {
  const cli = installLighthouse();
  for (let attempt = 1; ; attempt++) {
    try {
      return await lighthouseOnce(cli, url, options);
    } catch (error) {
      if (attempt >= 3) throw error;
      console.error(`    retrying: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
}

/**
 * `npm ci` here unless npm's record of what it installed (node_modules/.package-lock.json) has
 * every locked version already; returns the path of Lighthouse's CLI. npm runs on this process's
 * node, so its engines check sees Node 24: `npm run perf` names its own npm in `npm_execpath`.
 * Started as `node scripts/perf.mjs`, it runs the `npm` on PATH, on whichever node that finds.
 */
function installLighthouse() {
  const readJson = (file) => JSON.parse(readFileSync(join(HERE, file), "utf8"));
  const installed = existsSync(join(HERE, "node_modules/.package-lock.json")) ? readJson("node_modules/.package-lock.json").packages : {};
  const locked = Object.entries(readJson("package-lock.json").packages).filter(([path]) => path !== "");
  if (!locked.every(([path, { version }]) => installed[path]?.version === version)) {
    console.error(`installing Lighthouse in ${HERE} (npm ci on Node ${process.version})`);
    const args = ["ci", "--prefix", HERE, "--no-audit", "--no-fund"];
    const npm = process.env.npm_execpath;
    const { status } = npm ? spawnSync(process.execPath, [npm, ...args], { stdio: "inherit" }) : spawnSync("npm", args, { stdio: "inherit" });
    if (status !== 0) throw new Error(`npm ci in ${HERE} failed (exit ${status})`);
  }
  return require.resolve("lighthouse/cli/index.js");
}

async function lighthouseOnce(cli, url, { chromePath = process.env.CHROME_PATH || "/usr/bin/chromium", skipAudits = [], categories = CATEGORIES } = {}) {
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
          `--only-categories=${categories.join(",")}`,
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
      scores: Object.fromEntries(categories.map((id) => [id, Math.round((report.categories[id]?.score ?? 0) * 100)])),
      metrics: {
        fcp: metric("first-contentful-paint"),
        lcp: metric("largest-contentful-paint"),
        tbt: metric("total-blocking-time"),
        cls: metric("cumulative-layout-shift"),
        si: metric("speed-index"),
        // The race behind the simulated LCP (perf/README.md, "What stands between"): the paint
        // observed unthrottled, and when its last script had arrived.
        observedLcp: report.audits.metrics?.details?.items?.[0]?.observedLargestContentfulPaint ?? null,
        scriptsEnd: Math.max(
          0,
          ...(report.audits["network-requests"]?.details?.items ?? []).filter((r) => r.resourceType === "Script").map((r) => r.networkEndTime),
        ),
      },
      failing: [...new Set(failing)],
      warnings: report.runWarnings,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

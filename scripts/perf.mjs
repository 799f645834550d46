/**
 * `npm run perf`: builds, starts the site's server (scripts/serve.mjs, pinned to core 0) on
 * 127.0.0.1, then measures against perf/budgets.json:
 *   1. Lighthouse (mobile preset, simulated throttling) on every page, median of PERF_RUNS runs,
 *      beside the same page from PERF_BASE's build (default 81d3895, scripts/perf/base.mjs) and
 *      as the same HTML without scripts (scripts/perf/no-scripts.mjs), run for run,
 *   2. the JavaScript the home page loads, as the server sends it to Chromium (brotli),
 *   3. the home page's requests/second against the same bytes from bare node:http, servers on
 *      core 0 and the load generator (wrk, then autocannon) on core 1, without and with
 *      Accept-Encoding: br, with p99 latencies, and the brotli body against brotli-11 of the page,
 *   4. the time a visitor waits for a send with a slow and with an instant form service, with the
 *      lead store on SQLite and on PostgreSQL (scripts/perf/lead-wait.mjs),
 * prints one table, writes perf/latest.json and exits 1 when a budget is missed.
 *
 * Environment: PERF_PORT (default 3400; the floor server uses +1, the lead-wait site +2 and its
 * stand-in form service +3), PERF_RUNS (default 3), PERF_QUIET_WAIT (seconds to wait for idle
 * cores before each Lighthouse run and the throughput, default 120), PERF_LEAD_SENDS (default 50),
 * PERF_DRAFT_FLOOD (default 3000), PERF_DRAFT_WALKERS (default 5), PERF_DATABASE_CPUS (default "1"),
 * PERF_LEAD_ENGINES (default "sqlite,postgres"),
 * PERF_SERVER_CPUS / PERF_LOAD_CPUS (default "0" / "1"), CHROME_PATH (default /usr/bin/chromium),
 * PERF_SKIP_BUILD=1 to reuse the current build, PERF_BASE (default 81d3895; on port +4, the pages
 * without scripts on +5), PERF_ONLY=lighthouse to measure the pages alone (no throughput, no wait
 * for a send), PERF_ONLY=throughput for 3. alone. perf/README.md says what each number means.
 * Other work on the machine skews them: the load is recorded with them.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants } from "node:zlib";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { REPO } from "./serve.mjs";
import { startBase } from "./perf/base.mjs";
import { leadWaitProblems, runLeadWaits } from "./perf/lead-wait.mjs";
import { CHROME_FLAGS } from "./perf/chrome.mjs";
import { CATEGORIES, lighthouseRun } from "./perf/lighthouse/run.mjs";
import { cores, load, loadLog, step, waitForQuiet } from "./perf/machine.mjs";
import { pageScripts } from "./perf/page-scripts.mjs";
import { table } from "./perf/report.mjs";
import { startSite } from "./perf/site.mjs";
import { startNoScripts } from "./perf/no-scripts.mjs";
import { median } from "./perf/stats.mjs";
import { get, measureThroughput } from "./perf/throughput.mjs";

const budgets = JSON.parse(readFileSync(join(REPO, "perf/budgets.json"), "utf8"));
const port = Number(process.env.PERF_PORT || 3400);
const runs = Number(process.env.PERF_RUNS || 3);
const chromePath = process.env.CHROME_PATH || "/usr/bin/chromium";
const baseCommit = process.env.PERF_BASE || "81d3895";
const lighthouseOnly = process.env.PERF_ONLY === "lighthouse";
const throughputOnly = process.env.PERF_ONLY === "throughput";

if (load() > cores() / 2) {
  console.error(`warning: load average ${load()} on ${cores()} cores: other work will skew these numbers; run again when the machine is quiet`);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
// The throughput budgets need Debian's wrk: say so before minutes of Lighthouse, not after.
if (!lighthouseOnly && spawnSync("wrk", ["--version"]).error) {
  console.error("wrk is not installed (the throughput budgets are measured with it): apt-get install wrk");
  process.exit(1);
}

if (!process.env.PERF_SKIP_BUILD) {
  step("npm run build");
  if (spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] }).status !== 0) process.exit(1);
}

step(`starting the site's server on 127.0.0.1:${port}, ${baseCommit}'s on ${port + 4}, the pages without scripts on ${port + 5}`);
const site = await startSite(port);
const origin = site.url;
const base = throughputOnly ? undefined : await startBase(baseCommit, port + 4);
const noScripts = throughputOnly ? undefined : await startNoScripts(origin, port + 5);
/** PERF_ONLY=lighthouse: the pages and their scripts alone, without the throughput and the wait for a send. */
class LighthouseOnly extends Error {}

const results = { date: new Date().toISOString(), node: process.version, cores: cores(), loadStart: load(), runs, budgets, baseCommit: base?.commit };
const problems = [];
try {
  // 1. Lighthouse: this change, PERF_BASE's build and this change's HTML without scripts, each
  // run of a page back to back (the same moment's load on all three); budgets on this change's.
  const variants = { lighthouse: origin, lighthouseBase: base?.url, lighthouseNoScripts: noScripts?.url };
  for (const key of Object.keys(variants)) results[key] = {};
  for (const path of throughputOnly ? [] : budgets.pages) {
    const all = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
    for (let i = 0; i < runs; i++) {
      for (const [key, url] of Object.entries(variants)) {
        const busyBeforePercent = await waitForQuiet();
        step(`lighthouse ${path} run ${i + 1}/${runs}${key === "lighthouse" ? "" : key === "lighthouseBase" ? ` (${base.commit})` : " (without scripts)"}`);
        const options = { chromePath, skipAudits: budgets.lighthouseSkipAudits?.[path], categories: key === "lighthouse" ? CATEGORIES : ["performance"] };
        all[key].push({ ...(await lighthouseRun(url + path, options)), busyBeforePercent });
      }
    }
    for (const [key, list] of Object.entries(all)) {
      const scores = Object.fromEntries(Object.keys(list[0].scores).map((c) => [c, median(list.map((r) => r.scores[c]))]));
      const metrics = Object.fromEntries(Object.keys(list[0].metrics).map((m) => [m, median(list.map((r) => r.metrics[m]))]));
      results[key][path] = { version: list[0].version, formFactor: list[0].formFactor, throttling: list[0].throttlingMethod, scores, metrics, runs: list };
    }
    const { scores, metrics } = results.lighthouse[path];
    for (const c of CATEGORIES) {
      if (scores[c] < budgets.lighthouse[c])
        problems.push(
          `Lighthouse ${c} on ${path}: ${scores[c]} < ${budgets.lighthouse[c]} (audits below full marks in some run: ${[...new Set(all.lighthouse.flatMap((r) => r.failing))].join(", ") || "none"})`,
        );
    }
    const gap = metrics.lcp - results.lighthouseNoScripts[path].metrics.lcp;
    if (gap > budgets.lcpGapMs) problems.push(`LCP on ${path}: ${Math.round(gap)} ms after the same HTML without scripts > ${budgets.lcpGapMs} ms`);
  }

  // 2. The home page's JavaScript
  if (!throughputOnly) step("home page JavaScript");
  const browser = throughputOnly ? undefined : await chromium.launch({ executablePath: chromePath, args: CHROME_FLAGS.filter((f) => f !== "--headless") });
  if (browser)
    try {
      const scripts = await pageScripts(browser, `${origin}/`);
      const total = scripts.reduce((sum, s) => sum + s.bodyBytes, 0);
      results.homeJs = { totalBytes: total, headerBytes: scripts.reduce((sum, s) => sum + s.headerBytes, 0), scripts };
      if (total > budgets.homeJsBytes) problems.push(`home page JavaScript: ${total} B > ${budgets.homeJsBytes} B`);
    } finally {
      await browser.close();
    }

  if (lighthouseOnly) throw new LighthouseOnly();

  // 3. Throughput against the floor: wrk (the budgets) and autocannon, identity and brotli
  const busyBeforePercent = await waitForQuiet();
  results.throughput = { busyBeforePercent };
  for (const tool of ["wrk", "autocannon"]) {
    for (const [name, headers] of [
      ["identity", {}],
      ["brotli", { "accept-encoding": "br" }],
    ]) {
      step(`throughput, ${tool}, ${name === "identity" ? "no Accept-Encoding" : "Accept-Encoding: br"}`);
      results.throughput[`${tool}-${name}`] = await measureThroughput({ url: `${origin}/`, floorPort: port + 1, headers, tool });
    }
  }
  for (const [key, budget] of [
    ["wrk-identity", budgets.throughputRatio],
    ["wrk-brotli", budgets.throughputRatioBrotli],
  ]) {
    const { ratio } = results.throughput[key];
    if (ratio < budget) problems.push(`throughput ratio (${key}): ${ratio.toFixed(3)} < ${budget}`);
  }
  // The brotli body as sent, against brotli-11 of the same page (decision 0014: kept precompressed).
  const identity = (await get(`${origin}/`)).body;
  const sent = (await get(`${origin}/`, { "accept-encoding": "br" })).body.length;
  const best = brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  results.homeBrotli = { identityBytes: identity.length, sentBytes: sent, brotli11Bytes: best, ratio: sent / best };
  if (sent > best * budgets.brotliSizeRatio) problems.push(`home page brotli body: ${sent} B > ${budgets.brotliSizeRatio} × brotli-11 (${best} B)`);
} catch (error) {
  if (!(error instanceof LighthouseOnly)) throw error;
} finally {
  await Promise.all([site.stop(), base?.stop(), noScripts?.stop()]);
}

// 4. The wait for a send, on a server of its own (it needs a form service key and endpoint), once per engine
if (!lighthouseOnly && !throughputOnly) {
  results.leadWait = await runLeadWaits(port + 2);
  problems.push(...leadWaitProblems(results.leadWait, budgets));
}

results.loadEnd = load();
results.loadMax = Math.max(results.loadStart, results.loadEnd, ...loadLog.map((l) => l.load));
results.loadLog = loadLog;
results.problems = problems;
writeFileSync(join(REPO, "perf/latest.json"), JSON.stringify(results, null, 2) + "\n");

console.log(table(results));
// A busy machine can pass a budget as easily as fail one (the floor suffers most): say so.
if (results.loadMax > cores())
  console.log(`\nwarning: the load average reached ${results.loadMax} on ${cores()} cores during this run: these figures are not comparable with a quiet run.`);
if (problems.length) {
  console.log(`\nBudgets broken:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log("\nAll budgets met.");

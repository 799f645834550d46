/**
 * `npm run perf`: builds, starts the site's server (scripts/serve.mjs, pinned to core 0) on
 * 127.0.0.1, then measures against perf/budgets.json:
 *   1. Lighthouse (mobile preset, simulated throttling) on every page, median of PERF_RUNS runs,
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
 * PERF_SKIP_BUILD=1 to reuse the current build. perf/README.md says what each number means.
 * Other work on the machine skews them: the load is recorded with them.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants } from "node:zlib";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { REPO } from "./serve.mjs";
import { leadWaitProblems, runLeadWaits } from "./perf/lead-wait.mjs";
import { CHROME_FLAGS } from "./perf/chrome.mjs";
import { CATEGORIES, lighthouseRun } from "./perf/lighthouse/run.mjs";
import { cores, load, loadLog, step, waitForQuiet } from "./perf/machine.mjs";
import { pageScripts } from "./perf/page-scripts.mjs";
import { table } from "./perf/report.mjs";
import { startSite } from "./perf/site.mjs";
import { median } from "./perf/stats.mjs";
import { get, measureThroughput } from "./perf/throughput.mjs";

const budgets = JSON.parse(readFileSync(join(REPO, "perf/budgets.json"), "utf8"));
const port = Number(process.env.PERF_PORT || 3400);
const runs = Number(process.env.PERF_RUNS || 3);
const chromePath = process.env.CHROME_PATH || "/usr/bin/chromium";

if (load() > cores() / 2) {
  console.error(`warning: load average ${load()} on ${cores()} cores: other work will skew these numbers; run again when the machine is quiet`);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
// The throughput budgets need Debian's wrk: say so before minutes of Lighthouse, not after.
if (spawnSync("wrk", ["--version"]).error) {
  console.error("wrk is not installed (the throughput budgets are measured with it): apt-get install wrk");
  process.exit(1);
}

if (!process.env.PERF_SKIP_BUILD) {
  step("npm run build");
  if (spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] }).status !== 0) process.exit(1);
}

step(`starting the site's server on 127.0.0.1:${port}`);
const site = await startSite(port);
const origin = site.url;

const results = { date: new Date().toISOString(), node: process.version, cores: cores(), loadStart: load(), runs, budgets };
const problems = [];
try {
  // 1. Lighthouse
  results.lighthouse = {};
  for (const path of budgets.pages) {
    const all = [];
    for (let i = 0; i < runs; i++) {
      const busyBeforePercent = await waitForQuiet();
      step(`lighthouse ${path} run ${i + 1}/${runs}`);
      all.push({ ...(await lighthouseRun(origin + path, { chromePath, skipAudits: budgets.lighthouseSkipAudits?.[path] })), busyBeforePercent });
    }
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, median(all.map((r) => r.scores[c]))]));
    const metrics = Object.fromEntries(Object.keys(all[0].metrics).map((m) => [m, median(all.map((r) => r.metrics[m]))]));
    results.lighthouse[path] = { version: all[0].version, formFactor: all[0].formFactor, throttling: all[0].throttlingMethod, scores, metrics, runs: all };
    for (const c of CATEGORIES) {
      if (scores[c] < budgets.lighthouse[c])
        problems.push(
          `Lighthouse ${c} on ${path}: ${scores[c]} < ${budgets.lighthouse[c]} (audits below full marks in some run: ${[...new Set(all.flatMap((r) => r.failing))].join(", ") || "none"})`,
        );
    }
  }

  // 2. The home page's JavaScript
  step("home page JavaScript");
  const browser = await chromium.launch({ executablePath: chromePath, args: CHROME_FLAGS.filter((f) => f !== "--headless") });
  try {
    const scripts = await pageScripts(browser, `${origin}/`);
    const total = scripts.reduce((sum, s) => sum + s.bodyBytes, 0);
    results.homeJs = { totalBytes: total, headerBytes: scripts.reduce((sum, s) => sum + s.headerBytes, 0), scripts };
    if (total > budgets.homeJsBytes) problems.push(`home page JavaScript: ${total} B > ${budgets.homeJsBytes} B`);
  } finally {
    await browser.close();
  }

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
} finally {
  await site.stop();
}

// 4. The wait for a send, on a server of its own (it needs a form service key and endpoint), once per engine
results.leadWait = await runLeadWaits(port + 2);
problems.push(...leadWaitProblems(results.leadWait, budgets));

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

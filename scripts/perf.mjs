/**
 * `npm run perf`: builds, starts the production server (remix-serve) on 127.0.0.1, then
 *   1. Lighthouse (mobile preset, simulated throttling), 3 runs per page; medians per score/metric,
 *   2. the compressed JavaScript the home page loads (Chromium, fresh cache),
 *   3. the home page's requests/second against the same bytes from bare node:http, without and
 *      with Accept-Encoding,
 * prints one table, writes perf/latest.json and exits 1 when a budget in perf/budgets.json is broken.
 *
 * Environment: PERF_PORT (default 3400; the floor server uses PERF_PORT+1), PERF_RUNS (default 3),
 * CHROME_PATH (default /usr/bin/chromium), PERF_SKIP_BUILD=1 to reuse the current build.
 * Other work on the machine skews every number here: the load average is recorded with the results.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { CHROME_FLAGS, CATEGORIES, lighthouseRun } from "./perf/lighthouse.mjs";
import { pageScripts } from "./perf/page-scripts.mjs";
import { startServer } from "./perf/server.mjs";
import { measureThroughput } from "./perf/throughput.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const budgets = JSON.parse(readFileSync(join(root, "perf/budgets.json"), "utf8"));
const port = Number(process.env.PERF_PORT || 3400);
const runs = Number(process.env.PERF_RUNS || 3);
const chromePath = process.env.CHROME_PATH || "/usr/bin/chromium";
const origin = `http://127.0.0.1:${port}`;

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () => loadavg()[0].toFixed(2);

/** Share of all cores busy over `ms`, from /proc/stat (Linux); null where there is none. */
async function busyShare(ms = 1000) {
  const sample = () => {
    try {
      const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
      const n = fields.map(Number);
      const idle = n[3] + (n[4] || 0);
      return { idle, total: n.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const a = sample();
  await new Promise((r) => setTimeout(r, ms));
  const b = sample();
  if (!a || !b || b.total === a.total) return null;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

/**
 * Lighthouse's simulation multiplies the main-thread time it observes, so other work on the
 * machine shows up as Total Blocking Time. Before each run, wait (up to PERF_QUIET_WAIT seconds,
 * default 120) until the cores are mostly idle; record how busy they were.
 */
async function waitForQuiet() {
  const deadline = Date.now() + Number(process.env.PERF_QUIET_WAIT ?? 120) * 1000;
  let busy = await busyShare();
  while (busy !== null && busy > 0.15 && Date.now() < deadline) {
    console.error(`    waiting for a quiet machine (${Math.round(busy * 100)}% busy)`);
    await new Promise((r) => setTimeout(r, 4000));
    busy = await busyShare();
  }
  return busy === null ? null : Math.round(busy * 100);
}
const step = (text) => console.error(`==> ${text} (load ${load()} on ${cpus().length} cores)`);

if (loadavg()[0] > cpus().length / 2) {
  console.error(`warning: load average ${load()} on ${cpus().length} cores: other work will skew these numbers; run again when the machine is quiet`);
}

if (!process.env.PERF_SKIP_BUILD) {
  step("npm run build");
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (build.status !== 0) process.exit(1);
}

step(`starting remix-serve on ${origin}`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
const { stop } = await startServer({ port });

const results = { date: new Date().toISOString(), node: process.version, cores: cpus().length, loadStart: Number(load()), budgets };
const problems = [];
try {
  // 1. Lighthouse
  results.lighthouse = {};
  for (const path of budgets.pages) {
    const all = [];
    for (let i = 0; i < runs; i++) {
      const busyBefore = await waitForQuiet();
      step(`lighthouse ${path} run ${i + 1}/${runs}`);
      all.push({ ...(await lighthouseRun(origin + path, { chromePath })), busyBeforePercent: busyBefore });
    }
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, median(all.map((r) => r.scores[c]))]));
    const metrics = Object.fromEntries(Object.keys(all[0].metrics).map((m) => [m, median(all.map((r) => r.metrics[m]))]));
    results.lighthouse[path] = { version: all[0].version, formFactor: all[0].formFactor, throttling: all[0].throttlingMethod, scores, metrics, runs: all };
    for (const c of CATEGORIES) {
      if (scores[c] < budgets.lighthouse[c]) problems.push(`Lighthouse ${c} on ${path}: ${scores[c]} < ${budgets.lighthouse[c]} (failing audits: ${[...new Set(all.flatMap((r) => r.failing))].join(", ") || "none"})`);
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

  // 3. Throughput against the floor
  await waitForQuiet();
  step("throughput, no Accept-Encoding (as autocannon sends by default)");
  results.throughput = { identity: await measureThroughput({ url: `${origin}/`, floorPort: port + 1 }) };
  step("throughput, Accept-Encoding: gzip, deflate, br (as a browser sends)");
  results.throughput.compressed = await measureThroughput({ url: `${origin}/`, floorPort: port + 1, headers: { "accept-encoding": "gzip, deflate, br" } });
  const ratio = results.throughput.identity.ratio;
  if (ratio < budgets.throughputRatio) problems.push(`throughput ratio (identity): ${ratio.toFixed(3)} < ${budgets.throughputRatio}`);
} finally {
  stop();
}
results.loadEnd = Number(load());
results.problems = problems;
writeFileSync(join(root, "perf/latest.json"), JSON.stringify(results, null, 2) + "\n");

// The table
const pad = (s, n) => String(s).padEnd(n);
const lines = [];
lines.push(`| Page | Perf | A11y | BP | SEO | FCP | LCP | TBT | CLS |`);
lines.push(`|---|---|---|---|---|---|---|---|---|`);
for (const [path, r] of Object.entries(results.lighthouse)) {
  const m = r.metrics;
  lines.push(`| ${path} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} | ${r.scores.seo} | ${(m.fcp / 1000).toFixed(2)} s | ${(m.lcp / 1000).toFixed(2)} s | ${Math.round(m.tbt)} ms | ${m.cls.toFixed(3)} |`);
}
const t = results.throughput;
const js = results.homeJs;
lines.push("");
lines.push(`| Measure | Result | Budget |`);
lines.push(`|---|---|---|`);
lines.push(`| Home page JavaScript (compressed, ${js.scripts.length} files) | ${js.totalBytes.toLocaleString("en")} B (${(js.totalBytes / 1024).toFixed(1)} KiB) | ≤ ${budgets.homeJsBytes.toLocaleString("en")} B |`);
lines.push(`| Home page req/s, remix-serve vs bare node:http (no Accept-Encoding, ${t.identity.bytes} B) | ${Math.round(t.identity.appRps)} / ${Math.round(t.identity.floorRps)} = ${t.identity.ratio.toFixed(3)} | ≥ ${budgets.throughputRatio} |`);
lines.push(`| Same with Accept-Encoding: br (${t.compressed.encoding}, ${t.compressed.bytes} B; floor sends those bytes) | ${Math.round(t.compressed.appRps)} / ${Math.round(t.compressed.floorRps)} = ${t.compressed.ratio.toFixed(3)} | (reported) |`);
lines.push("");
lines.push(`Lighthouse ${Object.values(results.lighthouse)[0].version}, ${Object.values(results.lighthouse)[0].formFactor}, ${Object.values(results.lighthouse)[0].throttling} throttling, median of ${runs} runs; Node ${process.version}; load average ${results.loadStart} → ${results.loadEnd} on ${results.cores} cores.`);
console.log(lines.map((l) => pad(l, 0)).join("\n"));
if (problems.length) {
  console.log(`\nBudgets broken:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log("\nAll budgets met.");

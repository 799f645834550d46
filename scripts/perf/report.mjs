/** The Markdown table `npm run perf` prints (and perf/README.md's "Latest figures" copies). */
import { leadWaitRows } from "./lead-wait.mjs";

const n = (x) => Math.round(x).toLocaleString("en");

/** @param {any} results  what scripts/perf.mjs writes to perf/latest.json */
export function table(results) {
  const { budgets, lighthouse, homeJs: js, throughput: t } = results;
  const lines = [];
  // PERF_ONLY=throughput measured no page.
  if (Object.keys(lighthouse).length) pageTables(results, lines);
  lines.push("", "| Measure | Result | Budget |", "|---|---|---|");
  // Nor their scripts.
  if (js) {
    const encodings = [...new Set(js.scripts.map((s) => s.encoding))].join(", ");
    lines.push(`| Home page JavaScript (${js.scripts.length} files, ${encodings}) | ${n(js.totalBytes)} B | ≤ ${n(budgets.homeJsBytes)} B |`);
  }
  const first = Object.values(lighthouse)[0];
  const setting = first
    ? `Lighthouse ${first.version}, ${first.formFactor}, ${first.throttling} throttling, median of ${results.runs} runs`
    : "Throughput alone";
  const machine = `Node ${results.node}; load average ${results.loadStart} → ${results.loadEnd} (highest ${results.loadMax}) on ${results.cores} cores.`;
  // PERF_ONLY=lighthouse measured nothing more.
  if (!t) return [...lines, "", `${setting}; ${machine}`].join("\n");
  const rps = (r) => `${r.ratio.toFixed(3)} (${n(r.appRps)} / ${n(r.floorRps)} req/s; p99 ${r.appP99Ms} / ${r.floorP99Ms} ms)`;
  const brotli = results.homeBrotli;
  lines.push(
    `| Home page req/s, site ÷ bare node:http, wrk, no Accept-Encoding (${n(t["wrk-identity"].bytes)} B) | ${rps(t["wrk-identity"])} | ≥ ${budgets.throughputRatio} |`,
    `| Same, wrk, Accept-Encoding: br (${t["wrk-brotli"].encoding}, ${n(t["wrk-brotli"].bytes)} B) | ${rps(t["wrk-brotli"])} | ≥ ${budgets.throughputRatioBrotli} |`,
    `| Same, autocannon, no Accept-Encoding | ${rps(t["autocannon-identity"])} | (reported) |`,
    `| Same, autocannon, Accept-Encoding: br | ${rps(t["autocannon-brotli"])} | (reported) |`,
    `| Home page brotli body ÷ brotli-11 of the page (${n(brotli.identityBytes)} B of HTML) | ${brotli.ratio.toFixed(3)} (${n(brotli.sentBytes)} / ${n(brotli.brotli11Bytes)} B) | ≤ ${budgets.brotliSizeRatio} |`,
    ...leadWaitRows(results.leadWait ?? {}, budgets),
  );
  lines.push("", `${setting}; servers on core ${t["wrk-identity"].cpus.servers}, load generator on core ${t["wrk-identity"].cpus.load}; ${machine}`);
  return lines.join("\n");
}

/** Lighthouse's scores, and each page beside the earlier build and its HTML without scripts. */
function pageTables({ budgets, lighthouse, ...results }, lines) {
  lines.push("| Page | Performance | Accessibility | Best practices | SEO | FCP | LCP | TBT | CLS |", "|---|---|---|---|---|---|---|---|---|");
  for (const [path, r] of Object.entries(lighthouse)) {
    const m = r.metrics;
    lines.push(
      `| ${path} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} | ${r.scores.seo} | ${(m.fcp / 1000).toFixed(2)} s | ${(m.lcp / 1000).toFixed(2)} s | ${Math.round(m.tbt)} ms | ${m.cls.toFixed(3)} |`,
    );
  }
  // Side by side: this change, the earlier build, and this change's HTML without scripts.
  const cell = (r) => `${r.scores.performance}, LCP ${(r.metrics.lcp / 1000).toFixed(2)} s, TBT ${Math.round(r.metrics.tbt)} ms`;
  lines.push(
    "",
    `| Page | This change | ${results.baseCommit} | The same HTML without scripts | LCP minus the script-free LCP (≤ ${budgets.lcpGapMs} ms) |`,
    "|---|---|---|---|---|",
  );
  for (const [path, r] of Object.entries(lighthouse)) {
    const bare = results.lighthouseNoScripts[path];
    lines.push(`| ${path} | ${cell(r)} | ${cell(results.lighthouseBase[path])} | ${cell(bare)} | ${Math.round(r.metrics.lcp - bare.metrics.lcp)} ms |`);
  }
}

/** The Markdown table `npm run perf` prints (and the README's Performance section copies). */
import { leadWaitRows } from "./lead-wait.mjs";

const n = (x) => Math.round(x).toLocaleString("en");

/** @param {any} results  what scripts/perf.mjs writes to perf/latest.json */
export function table(results) {
  const { budgets, lighthouse, homeJs: js, throughput: t } = results;
  const lines = ["| Page | Performance | Accessibility | Best practices | SEO | FCP | LCP | TBT | CLS |", "|---|---|---|---|---|---|---|---|---|"];
  for (const [path, r] of Object.entries(lighthouse)) {
    const m = r.metrics;
    lines.push(`| ${path} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} | ${r.scores.seo} | ${(m.fcp / 1000).toFixed(2)} s | ${(m.lcp / 1000).toFixed(2)} s | ${Math.round(m.tbt)} ms | ${m.cls.toFixed(3)} |`);
  }
  const encodings = [...new Set(js.scripts.map((s) => s.encoding))].join(", ");
  const rps = (r) => `${r.ratio.toFixed(3)} (${n(r.appRps)} / ${n(r.floorRps)} req/s)`;
  lines.push(
    "",
    "| Measure | Result | Budget |",
    "|---|---|---|",
    `| Home page JavaScript (${js.scripts.length} files, ${encodings}) | ${n(js.totalBytes)} B | ≤ ${n(budgets.homeJsBytes)} B |`,
    `| Home page req/s, site ÷ bare node:http, no Accept-Encoding (${n(t.identity.bytes)} B) | ${rps(t.identity)} | ≥ ${budgets.throughputRatio} |`,
    `| Same with Accept-Encoding: br (${t.brotli.encoding}, ${n(t.brotli.bytes)} B) | ${rps(t.brotli)} | (reported) |`,
    ...leadWaitRows(results.leadWait, budgets),
  );
  const first = Object.values(lighthouse)[0];
  lines.push(
    "",
    `Lighthouse ${first.version}, ${first.formFactor}, ${first.throttling} throttling, median of ${results.runs} runs; ` +
      `servers on core ${t.identity.cpus.servers}, autocannon on core ${t.identity.cpus.autocannon}; ` +
      `Node ${results.node}; load average ${results.loadStart} → ${results.loadEnd} (highest ${results.loadMax}) on ${results.cores} cores.`,
  );
  return lines.join("\n");
}

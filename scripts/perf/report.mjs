/** The Markdown table `npm run perf` prints (and perf/README.md's "Latest figures" copies). */
import { leadWaitRows } from "./lead-wait.mjs";

const n = (x) => Math.round(x).toLocaleString("en");

/** @param {any} results  what scripts/perf.mjs writes to perf/latest.json */
export function table(results) {
  const { budgets, lighthouse, homeJs: js, throughput: t } = results;
  const lines = ["| Page | Performance | Accessibility | Best practices | SEO | FCP | LCP | TBT | CLS |", "|---|---|---|---|---|---|---|---|---|"];
  for (const [path, r] of Object.entries(lighthouse)) {
    const m = r.metrics;
    lines.push(
      `| ${path} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} | ${r.scores.seo} | ${(m.fcp / 1000).toFixed(2)} s | ${(m.lcp / 1000).toFixed(2)} s | ${Math.round(m.tbt)} ms | ${m.cls.toFixed(3)} |`,
    );
  }
  const encodings = [...new Set(js.scripts.map((s) => s.encoding))].join(", ");
  const rps = (r) => `${r.ratio.toFixed(3)} (${n(r.appRps)} / ${n(r.floorRps)} req/s; p99 ${r.appP99Ms} / ${r.floorP99Ms} ms)`;
  const brotli = results.homeBrotli;
  lines.push(
    "",
    "| Measure | Result | Budget |",
    "|---|---|---|",
    `| Home page JavaScript (${js.scripts.length} files, ${encodings}) | ${n(js.totalBytes)} B | ≤ ${n(budgets.homeJsBytes)} B |`,
    `| Home page req/s, site ÷ bare node:http, wrk, no Accept-Encoding (${n(t["wrk-identity"].bytes)} B) | ${rps(t["wrk-identity"])} | ≥ ${budgets.throughputRatio} |`,
    `| Same, wrk, Accept-Encoding: br (${t["wrk-brotli"].encoding}, ${n(t["wrk-brotli"].bytes)} B) | ${rps(t["wrk-brotli"])} | ≥ ${budgets.throughputRatioBrotli} |`,
    `| Same, autocannon, no Accept-Encoding | ${rps(t["autocannon-identity"])} | (reported) |`,
    `| Same, autocannon, Accept-Encoding: br | ${rps(t["autocannon-brotli"])} | (reported) |`,
    `| Home page brotli body ÷ brotli-11 of the page (${n(brotli.identityBytes)} B of HTML) | ${brotli.ratio.toFixed(3)} (${n(brotli.sentBytes)} / ${n(brotli.brotli11Bytes)} B) | ≤ ${budgets.brotliSizeRatio} |`,
    ...leadWaitRows(results.leadWait, budgets),
  );
  const first = Object.values(lighthouse)[0];
  lines.push(
    "",
    `Lighthouse ${first.version}, ${first.formFactor}, ${first.throttling} throttling, median of ${results.runs} runs; ` +
      `servers on core ${t["wrk-identity"].cpus.servers}, load generator on core ${t["wrk-identity"].cpus.load}; ` +
      `Node ${results.node}; load average ${results.loadStart} → ${results.loadEnd} (highest ${results.loadMax}) on ${results.cores} cores.`,
  );
  return lines.join("\n");
}

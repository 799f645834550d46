/**
 * How long a visitor waits for a send: valid contact forms posted as a browser without
 * JavaScript posts them, against a stand-in form service that answers after 3 s and against one
 * that answers at once. A form service's outage never keeps a visitor waiting (docs/product.md,
 * "A lead's path"), so the slow service must not show in the visitor's wait.
 *
 * The server allows each client 5 leads per 10 minutes and 30 posts a minute, telling clients
 * apart by socket address (no proxy in front), so every post comes from its own loopback address
 * (127.0.0.2, 127.0.0.3, …). Loopback only.
 *
 * Alone: `npm run perf:leads` (PERF_SKIP_BUILD=1 skips the build) starts the built server on
 * PERF_PORT+2 and the stand-in service on PERF_PORT+3, prints the figures and exits 1 when a budget
 * in perf/budgets.json is missed. PERF_LEAD_SENDS (default 50) posts per mode, 5 at a time.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO } from "../serve.mjs";
import { load, step } from "./machine.mjs";
import { startSite } from "./site.mjs";
import { median, percentile } from "./stats.mjs";

const SLOW_SERVICE_MS = 3000;

/**
 * A stand-in form service on 127.0.0.1:`port`: `POST /submit` answers Web3Forms' success, after
 * `delayMs` (0 at first). The site is started with FORM_ENDPOINT set to `submitUrl`.
 */
async function startFormService(port) {
  let delayMs = 0;
  let received = 0;
  const timers = new Set();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      const answer = () => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ success: true, message: "Email sent successfully!" }));
      };
      if (delayMs === 0) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return {
    submitUrl: `http://127.0.0.1:${port}/submit`,
    setDelay: (ms) => void (delayMs = ms),
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        timers.forEach(clearTimeout);
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

let nextClient = 0;
/** A loopback address no earlier post used: 127.0.0.2 … 127.0.0.254, then 127.0.1.2 … */
function freshClientAddress() {
  const n = nextClient++;
  return `127.0.${Math.floor(n / 253)}.${2 + (n % 253)}`;
}

/** One contact form post from its own address; resolves with the status and the wait in ms. */
function postContact(url, text) {
  const body = new URLSearchParams({ formName: "contact", name: "Perf Visitor", email: "perf@example.com", service: "seo", message: text }).toString();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      `${url}/?index`,
      {
        method: "POST",
        localAddress: freshClientAddress(),
        agent: false,
        headers: { Origin: url, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** `sends` posts, `concurrency` at a time; the waits and the answers' statuses. */
async function sendMany(url, label, sends, concurrency) {
  const results = [];
  let i = 0;
  const worker = async () => {
    while (i < sends) results.push(await postContact(url, `perf lead wait (${label}) ${i++}`));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const waits = results.map((r) => r.ms);
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const round = (x) => Math.round(x);
  return { sends, concurrency, p50Ms: round(median(waits)), p99Ms: round(percentile(waits, 99)), maxMs: round(Math.max(...waits)), statuses };
}

/**
 * @param {object} o
 * @param {string} o.url  the site, started with FORM_ACCESS_KEY set and FORM_ENDPOINT at `service`
 * @param {Awaited<ReturnType<typeof startFormService>>} o.service
 * @param {number} [o.sends]  per mode
 * @param {number} [o.concurrency]
 */
async function measureLeadWait({ url, service, sends = 50, concurrency = 5 }) {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error(`refusing to post leads to ${url}: loopback only`);
  // Warm the action's code paths first; these sends are not counted.
  service.setDelay(0);
  await sendMany(url, "warm-up", 5, 5);
  // Instant first: with a lead store, deliveries to the slow service go on after its sends end.
  const modes = {};
  for (const [name, delay] of [
    ["instant", 0],
    ["slow", SLOW_SERVICE_MS],
  ]) {
    service.setDelay(delay);
    const before = service.received();
    modes[name] = { serviceDelayMs: delay, ...(await sendMany(url, name, sends, concurrency)) };
    modes[name].serviceReceivedByLastAnswer = service.received() - before;
  }
  return { ...modes, dependenceMs: modes.slow.p99Ms - modes.instant.p99Ms };
}

/** The budgets from perf/budgets.json this breaks, as sentences. */
export function leadWaitProblems(result, budgets) {
  const problems = [];
  for (const mode of ["instant", "slow"]) {
    const other = Object.entries(result[mode].statuses).filter(([status]) => status !== "303");
    if (other.length) problems.push(`lead wait (${mode} service): not every send was stored (303): ${other.map(([s, n]) => `${n}× ${s}`).join(", ")}`);
  }
  if (result.slow.p99Ms > budgets.leadWaitP99Ms)
    problems.push(
      `lead wait p99 with a ${SLOW_SERVICE_MS / 1000} s service: ${result.slow.p99Ms} ms > ${budgets.leadWaitP99Ms} ms (the visitor waits for the service)`,
    );
  if (result.dependenceMs > budgets.leadWaitDependenceMs)
    problems.push(`lead wait p99, slow minus instant service: ${result.dependenceMs} ms > ${budgets.leadWaitDependenceMs} ms`);
  return problems;
}

/** Table rows (Markdown) for the report. */
export function leadWaitRows(result, budgets) {
  const ms = (x) => `${x.toLocaleString("en")} ms`;
  const row = (r) => `p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}`;
  return [
    `| Wait for a send, service answers at once (${result.instant.sends} sends, ${result.instant.concurrency} at a time) | ${row(result.instant)} | (reference) |`,
    `| Wait for a send, service answers after ${SLOW_SERVICE_MS / 1000} s | ${row(result.slow)} | p99 ≤ ${ms(budgets.leadWaitP99Ms)} |`,
    `| Wait for a send, p99 slow minus p99 instant | ${ms(result.dependenceMs)} | ≤ ${ms(budgets.leadWaitDependenceMs)} |`,
  ];
}

/** Starts the stand-in service on `port + 1` and the site on `port` pointing at it, measures, stops both. */
export async function runLeadWait(port, options = {}) {
  const service = await startFormService(port + 1);
  try {
    const site = await startSite(port, { FORM_ACCESS_KEY: "perf-key", FORM_ENDPOINT: service.submitUrl }, "server-leads");
    try {
      return await measureLeadWait({ url: site.url, service, ...options });
    } finally {
      await site.stop();
    }
  } finally {
    await service.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
  const budgets = JSON.parse(readFileSync(join(REPO, "perf/budgets.json"), "utf8"));
  if (!process.env.PERF_SKIP_BUILD) {
    step("npm run build");
    if (spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] }).status !== 0) process.exit(1);
  }
  const port = Number(process.env.PERF_PORT || 3400) + 2;
  step(`lead wait: the site on ${port}, the stand-in form service on ${port + 1}`);
  const loadStart = load();
  const result = await runLeadWait(port, { sends: Number(process.env.PERF_LEAD_SENDS || 50) });
  console.log(["| Measure | Result | Budget |", "|---|---|---|", ...leadWaitRows(result, budgets)].join("\n"));
  console.log(`\nLoad average ${loadStart} → ${load()}.`);
  const problems = leadWaitProblems(result, budgets);
  if (problems.length) {
    console.log(`\nBudgets broken:\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log("\nLead wait budgets met.");
}

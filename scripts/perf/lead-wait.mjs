/**
 * How long a visitor waits for a send: valid contact forms posted as a browser without
 * JavaScript posts them, against a stand-in form service that answers after 3 s and against one
 * that answers at once. A form service's outage never keeps a visitor waiting (docs/product.md,
 * "A lead's path"), so the slow service must not show in the visitor's wait. Measured on each
 * engine of the lead store (decision 0046): SQLite in the data folder, and a real PostgreSQL
 * (tests/support/postgres.ts) through DATABASE_URL. A third round repeats the slow service's
 * at the drafts' worst: a flood has filled their table past its budget first, and wizard steps
 * without JavaScript are posted beside the sends, each of which writes a draft to the same store
 * (server/drafts.ts) and evicts another; the lead's own receipt is a draft too.
 *
 * The server allows each client 5 leads per 10 minutes and 30 posts a minute, telling clients
 * apart by socket address (no proxy in front), so every post comes from its own loopback address
 * (127.0.0.2, 127.0.0.3, …), and each wizard walk its own. Loopback only.
 *
 * Alone: `npm run perf:leads` (PERF_SKIP_BUILD=1 skips the build) starts the built server on
 * PERF_PORT+2 and the stand-in service on PERF_PORT+3, once per engine in PERF_LEAD_ENGINES
 * (default "sqlite,postgres"), prints the figures and exits 1 when a budget in perf/budgets.json
 * is missed. PERF_LEAD_SENDS (default 50) posts per round, 5 at a time; PERF_DRAFT_FLOOD (default
 * 3000) drafts before the third round and PERF_DRAFT_WALKERS (default 5) visitors walking the
 * wizard, step after step, beside it; PERF_DATABASE_CPUS (default "1") PostgreSQL's cores. The
 * site's main thread's time on a core and waiting for one is recorded with each round, to tell a
 * busy machine from a slow store.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { biggestDraft } from "../../tests/support/biggest-draft.ts";
import { startPostgres } from "../../tests/support/postgres.ts";
import { REPO } from "../serve.mjs";
import { load, schedMs, step } from "./machine.mjs";
import { startSite } from "./site.mjs";
import { median, percentile } from "./stats.mjs";

const SLOW_SERVICE_MS = 3000;
const ENGINES = { sqlite: "SQLite", postgres: "PostgreSQL" };

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

/**
 * One no-JavaScript post of the home page's forms (urlencoded to `/?index`, same-origin Origin,
 * redirects not followed); resolves with the status, the wait in ms, the redirect and the cookie.
 */
function post(url, fields, localAddress, cookie = "") {
  const body = new URLSearchParams(fields).toString();
  const headers = {
    Origin: url,
    "Content-Type": "application/x-www-form-urlencoded",
    "Content-Length": Buffer.byteLength(body),
    ...(cookie && { Cookie: cookie }),
  };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${url}/?index`, { method: "POST", localAddress, agent: false, headers }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          ms: performance.now() - started,
          location: res.headers.location ?? "",
          cookie: res.headers["set-cookie"]?.[0]?.split(";")[0] ?? cookie,
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const postContact = (url, text) =>
  post(url, { formName: "contact", name: "Perf Visitor", email: "perf@example.com", service: "seo", message: text }, freshClientAddress());

const DESCRIPTION = "An online shop for a bakery: orders for collection, a weekly menu the staff can edit, and payments by card. ".repeat(3);

/**
 * A visitor without JavaScript taking the wizard's steps 1-4 from one address, with the cookie
 * and the draft's id each answer gives, as a browser posts them: every step saves the draft (the
 * first makes it, the others read it and replace it). Stops at step 5, unsent, or once `going()`
 * is false. Resolves with each step's answer.
 */
async function walkWizard(url, going = () => true) {
  const address = freshClientAddress();
  const state = { formName: "calculator", "state.complexity": "medium" };
  const answers = [
    { service: "seo" },
    { timeframe: "urgent", "state.service": "seo" },
    { complexity: "complex", "state.timeframe": "urgent" },
    { description: DESCRIPTION, intent: "continue", "state.complexity": "complex" },
  ];
  const results = [];
  let cookie = "";
  for (const [i, answer] of answers.entries()) {
    if (!going()) break;
    Object.assign(state, { "state.step": String(i + 1), ...(i > 0 && { "state.reached": String(i + 1) }) }, answer);
    const result = await post(url, state, address, cookie);
    results.push(result);
    const draft = new URL(result.location, url).searchParams.get("draft");
    if (result.status !== 303 || !draft) break;
    state.draft = draft;
    cookie = result.cookie;
    for (const key of ["service", "timeframe", "complexity", "description", "intent"]) delete state[key];
  }
  return results;
}

/**
 * `walkers` visitors walking the wizard, each a new one as soon as the last is at step 5, until
 * the returned stop() is called; stop() resolves with their steps' figures.
 */
function wizardSteps(url, walkers) {
  const results = [];
  const started = performance.now();
  let stopped = false;
  const walking = Array.from({ length: walkers }, async () => {
    while (!stopped) results.push(...(await walkWizard(url, () => !stopped)));
  });
  return async () => {
    stopped = true;
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(walking);
    return { walkers, perSecond: Math.round(results.length / seconds), ...figures(results) };
  };
}

/**
 * The biggest draft a post can leave (tests/support/biggest-draft.ts), `count` of them, each
 * from its own address, `concurrency` at a time. 3,000 of them are over the drafts' budget (server/drafts.ts,
 * DRAFT_MEMORY: 16 MB), so every save after them evicts: a flood's work, decision 0034.
 */
async function floodDrafts(url, count, concurrency = 5) {
  const results = [];
  const started = performance.now();
  let i = 0;
  const worker = async () => {
    while (i < count) results.push(await post(url, biggestDraft(`flood ${i++}`), freshClientAddress()));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { drafts: count, seconds: Math.round((performance.now() - started) / 1000), ...figures(results) };
}

/** p50, p99 and the slowest of the waits, and how many answers had each status. */
function figures(results) {
  const waits = results.map((r) => r.ms);
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const round = (x) => Math.round(x);
  return { count: results.length, p50Ms: round(median(waits)), p99Ms: round(percentile(waits, 99)), maxMs: round(Math.max(...waits)), statuses };
}

/** `sends` posts, `concurrency` at a time; the waits and the answers' statuses. */
async function sendMany(url, label, sends, concurrency) {
  const results = [];
  let i = 0;
  const worker = async () => {
    while (i < sends) results.push(await postContact(url, `perf lead wait (${label}) ${i++}`));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const { count, ...rest } = figures(results);
  return { sends: count, concurrency, ...rest };
}

/**
 * @param {object} o
 * @param {string} o.url  the site, started with FORM_ACCESS_KEY set and FORM_ENDPOINT at `service`
 * @param {number} o.pid  the site's process
 * @param {Awaited<ReturnType<typeof startFormService>>} o.service
 * @param {number} [o.sends]  per round
 * @param {number} [o.concurrency]
 * @param {number} [o.draftWalkers]  visitors walking the wizard beside the third round
 * @param {number} [o.draftFlood]  drafts posted before the third round
 */
async function measureLeadWait({ url, pid, service, sends = 50, concurrency = 5, draftWalkers = 5, draftFlood = 3_000 }) {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error(`refusing to post leads to ${url}: loopback only`);
  // Warm the action's code paths first (the wizard's too); these sends are not counted.
  service.setDelay(0);
  await sendMany(url, "warm-up", 5, 5);
  await walkWizard(url);
  // Instant first: with a lead store, deliveries to the slow service go on after its sends end.
  const rounds = {};
  for (const [name, delay, walkers] of [
    ["instant", 0, 0],
    ["slow", SLOW_SERVICE_MS, 0],
    ["slowWithDrafts", SLOW_SERVICE_MS, draftWalkers],
  ]) {
    service.setDelay(delay);
    const flood = walkers > 0 && draftFlood > 0 ? await floodDrafts(url, draftFlood) : undefined;
    const [before, schedBefore, started] = [service.received(), schedMs(pid), performance.now()];
    const stopSteps = walkers > 0 ? wizardSteps(url, walkers) : undefined;
    rounds[name] = { serviceDelayMs: delay, ...(await sendMany(url, name, sends, concurrency)) };
    rounds[name].serviceReceivedByLastAnswer = service.received() - before;
    if (stopSteps) Object.assign(rounds[name], { flood, wizardSteps: await stopSteps() });
    // The share of the round the site's main thread ran, and waited for a core other work had.
    const [sched, wall] = [schedMs(pid), performance.now() - started];
    rounds[name].site = {
      runningPercent: Math.round((100 * (sched.running - schedBefore.running)) / wall),
      waitingForCpuPercent: Math.round((100 * (sched.waiting - schedBefore.waiting)) / wall),
    };
  }
  return { ...rounds, dependenceMs: rounds.slow.p99Ms - rounds.instant.p99Ms, draftsMs: rounds.slowWithDrafts.p99Ms - rounds.slow.p99Ms };
}

/** The budgets from perf/budgets.json that `results` (engine → measureLeadWait's result) break, as sentences. */
export function leadWaitProblems(results, budgets) {
  const problems = [];
  for (const [engine, result] of Object.entries(results)) {
    const on = `on ${ENGINES[engine]}`;
    for (const round of ["instant", "slow", "slowWithDrafts"]) {
      const other = Object.entries(result[round].statuses).filter(([status]) => status !== "303");
      if (other.length) problems.push(`lead wait ${on} (${round}): not every send was stored (303): ${other.map(([s, n]) => `${n}× ${s}`).join(", ")}`);
    }
    const { flood, wizardSteps } = result.slowWithDrafts;
    for (const [what, posts] of [
      ["flood's draft", flood],
      ["wizard step beside it", wizardSteps],
    ]) {
      const unsaved = Object.entries(posts?.statuses ?? {}).filter(([status]) => status !== "303");
      if (unsaved.length) problems.push(`lead wait ${on}: not every ${what} was saved (303): ${unsaved.map(([s, n]) => `${n}× ${s}`).join(", ")}`);
    }
    for (const round of ["slow", "slowWithDrafts"])
      if (result[round].p99Ms > budgets.leadWaitP99Ms)
        problems.push(
          `lead wait p99 ${on} with a ${SLOW_SERVICE_MS / 1000} s service${round === "slow" ? "" : ", after a flood of drafts and with wizard steps beside it"}: ${result[round].p99Ms} ms > ${budgets.leadWaitP99Ms} ms`,
        );
    if (result.dependenceMs > budgets.leadWaitDependenceMs)
      problems.push(`lead wait p99 ${on}, slow minus instant service: ${result.dependenceMs} ms > ${budgets.leadWaitDependenceMs} ms`);
  }
  return problems;
}

/** Table rows (Markdown) for the report: engine → measureLeadWait's result. */
export function leadWaitRows(results, budgets) {
  const ms = (x) => `${x.toLocaleString("en")} ms`;
  const flooded = (f) => (f ? `a flood of ${f.drafts.toLocaleString("en")} drafts (p50 ${ms(f.p50Ms)}, p99 ${ms(f.p99Ms)} a post), with ` : "");
  const row = (r) =>
    `p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}${r.site ? ` (site ran ${r.site.runningPercent}%, waited for a core ${r.site.waitingForCpuPercent}%)` : ""}`;
  return Object.entries(results).flatMap(([engine, r]) => [
    `| Wait for a send, ${ENGINES[engine]}, service answers at once (${r.instant.sends} sends, ${r.instant.concurrency} at a time) | ${row(r.instant)} | (reference) |`,
    `| Same, service answers after ${SLOW_SERVICE_MS / 1000} s | ${row(r.slow)} | p99 ≤ ${ms(budgets.leadWaitP99Ms)} |`,
    `| Same, p99 slow minus p99 instant | ${ms(r.dependenceMs)} | ≤ ${ms(budgets.leadWaitDependenceMs)} |`,
    `| Same, ${SLOW_SERVICE_MS / 1000} s service, after ${flooded(r.slowWithDrafts.flood)}${r.slowWithDrafts.wizardSteps.walkers} visitors walking the wizard beside it, ${r.slowWithDrafts.wizardSteps.perSecond} steps/s (the steps: ${row(r.slowWithDrafts.wizardSteps)}) | ${row(r.slowWithDrafts)}; ${r.draftsMs >= 0 ? "+" : ""}${ms(r.draftsMs)} on the p99 | p99 ≤ ${ms(budgets.leadWaitP99Ms)} |`,
  ]);
}

/** PostgreSQL's cores: off the site's (PERF_SERVER_CPUS), as a database of its own would be. */
const DATABASE_CPUS = process.env.PERF_DATABASE_CPUS || "1";

/** Moves the cluster's processes to DATABASE_CPUS; the backends its postmaster starts later inherit it. */
function pin({ dir }) {
  const postmaster = readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0];
  const children = execFileSync("pgrep", ["-P", postmaster], { encoding: "utf8" }).split("\n").filter(Boolean);
  for (const pid of [postmaster, ...children]) execFileSync("taskset", ["-a", "-c", "-p", DATABASE_CPUS, pid], { stdio: "ignore" });
}

/**
 * Starts the stand-in service on `port + 1` and the site on `port` pointing at it, on `engine`'s
 * store, measures, stops them. PostgreSQL is a cluster of its own on DATABASE_CPUS, with fsync on:
 * commits as durable as SQLite's (synchronous FULL).
 */
async function runLeadWait(port, { engine = "sqlite", ...options } = {}) {
  const service = await startFormService(port + 1);
  const postgres = engine === "postgres" ? await startPostgres({ settings: { fsync: "on" } }) : undefined;
  try {
    if (postgres) pin(postgres);
    const store = postgres ? { DATABASE_URL: await postgres.database("leads") } : {};
    const env = { FORM_ACCESS_KEY: "perf-key", FORM_ENDPOINT: service.submitUrl, ...store };
    const site = await startSite(port, env, `server-leads-${engine}`);
    try {
      return await measureLeadWait({ url: site.url, pid: site.pid, service, ...options });
    } finally {
      await site.stop();
    }
  } finally {
    await postgres?.stop();
    await service.close();
  }
}

/** runLeadWait on each engine in PERF_LEAD_ENGINES (default both), one after the other: engine → result. */
export async function runLeadWaits(port) {
  const options = {
    sends: Number(process.env.PERF_LEAD_SENDS || 50),
    draftWalkers: Number(process.env.PERF_DRAFT_WALKERS || 5),
    draftFlood: Number(process.env.PERF_DRAFT_FLOOD ?? 3_000),
  };
  const results = {};
  for (const engine of (process.env.PERF_LEAD_ENGINES || "sqlite,postgres").split(",")) {
    if (!(engine in ENGINES)) throw new Error(`PERF_LEAD_ENGINES: ${engine} is not one of ${Object.keys(ENGINES).join(", ")}`);
    step(`the wait for a send on ${ENGINES[engine]}: the site on ${port}, the stand-in form service on ${port + 1}`);
    results[engine] = await runLeadWait(port, { engine, ...options });
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
  const budgets = JSON.parse(readFileSync(join(REPO, "perf/budgets.json"), "utf8"));
  if (!process.env.PERF_SKIP_BUILD) {
    step("npm run build");
    if (spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] }).status !== 0) process.exit(1);
  }
  const loadStart = load();
  const results = await runLeadWaits(Number(process.env.PERF_PORT || 3400) + 2);
  console.log(["| Measure | Result | Budget |", "|---|---|---|", ...leadWaitRows(results, budgets)].join("\n"));
  console.log(`\nLoad average ${loadStart} → ${load()}.`);
  const problems = leadWaitProblems(results, budgets);
  if (problems.length) {
    console.log(`\nBudgets broken:\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log("\nLead wait budgets met.");
}

/**
 * Requests per second of one page from the site's server, against the floor: the very bytes that
 * page returned, served from memory by bare node:http (floor-server.mjs) in another process.
 * Two load generators: autocannon (Node, tops out near 21k req/s here, which flatters every ratio
 * once the site is fast) and wrk (C, from Debian), which can saturate the floor.
 *
 * Unpinned, autocannon takes its CPU time from the same two cores as the servers it loads. So both
 * servers run on one core (PERF_SERVER_CPUS, default "0") and autocannon, as its own process, on
 * the other (PERF_LOAD_CPUS, default "1"): each is measured on the same one core, never sharing
 * it with the load generator.
 * They are loaded in alternating rounds in the same run, and the ratio is the median of the
 * per-round ratios, so a disturbance that lasts a round moves one ratio, not the result.
 * Every request, to the site and to the floor, is a landing as a phone's browser makes it (LANDING):
 * the site counts each (server/landings.ts), so its figure includes that work.
 * Loopback only.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_CPUS } from "./site.mjs";
import { median } from "./stats.mjs";

const LOAD_CPUS = process.env.PERF_LOAD_CPUS || "1";
/** A visitor on a current Chrome for Android, from a LinkedIn post, on a campaign's link. */
const LANDING = {
  query: "?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
  headers: {
    "user-agent": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
    referer: "https://www.linkedin.com/",
  },
};
const floorScript = fileURLToPath(new URL("./floor-server.mjs", import.meta.url));
// The package's main module is its command line (its `bin`).
const autocannonCli = fileURLToPath(import.meta.resolve("autocannon"));

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") throw new Error(`refusing to load-test ${host}: loopback only`);
}

/** Runs `node args…` (or another program) pinned to `cpus`; resolves with its stdout. */
function runPinned(cpus, args, program = process.execPath) {
  return new Promise((resolve, reject) => {
    const child = spawn("taskset", ["-c", cpus, program, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`taskset -c ${cpus} node ${args[0]} exited ${code}: ${err.trim()}`))));
  });
}

/**
 * One run of the load generator (pinned to LOAD_CPUS): requests/s, p99 latency (ms) and the
 * count of errors, timeouts and non-2xx answers.
 */
async function load(url, { duration, connections, headers, tool }) {
  assertLoopback(url);
  if (tool === "wrk") {
    const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
    const out = await runPinned(LOAD_CPUS, ["-c", String(connections), "-d", `${duration}s`, "-t", "1", "--latency", ...headerArgs, url], "wrk");
    const number = (re) => Number(re.exec(out)?.[1] ?? NaN);
    const ms = (m) => (m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]] : NaN);
    const failures = number(/Non-2xx or 3xx responses: (\d+)/) || 0;
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    return {
      rps: number(/Requests\/sec:\s+([\d.]+)/),
      p99Ms: ms(/\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out)),
      errors: failures + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    };
  }
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}=${value}`]);
  const result = JSON.parse(await runPinned(LOAD_CPUS, [autocannonCli, "-j", "-n", "-c", String(connections), "-d", String(duration), ...headerArgs, url]));
  return { rps: result.requests.average, p99Ms: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

/** The floor server, pinned to the site's core; resolves once it prints "ready". */
function startFloor(port, file, encoding) {
  const child = spawn("taskset", ["-c", SERVER_CPUS, process.execPath, floorScript, String(port), file, ...(encoding ? [encoding] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  // Also when this process is stopped mid-run (perf.mjs exits on SIGINT).
  const kill = () => child.kill();
  process.on("exit", kill);
  child.once("exit", () => process.off("exit", kill));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (c) => String(c).includes("ready") && resolve(child));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`floor server exited with ${code}`)));
  });
}

/**
 * @param {object} o
 * @param {string} o.url         page on the site's server, e.g. http://127.0.0.1:3400/ (LANDING's query is added)
 * @param {number} o.floorPort   a free port for the floor server
 * @param {Record<string,string>} [o.headers]  request headers (e.g. accept-encoding), beside LANDING's
 * @param {number} [o.rounds]    alternating rounds; the medians are reported
 * @param {number} [o.duration]  seconds per measurement
 * @param {number} [o.connections]
 * @param {"autocannon" | "wrk"} [o.tool]
 */
export async function measureThroughput({ url: page, floorPort, headers: own = {}, rounds = 5, duration = 3, connections = 10, tool = "autocannon" }) {
  assertLoopback(page);
  const url = `${page}${LANDING.query}`;
  const headers = { ...LANDING.headers, ...own };
  // node:http, not fetch(): fetch adds its own Accept-Encoding and decodes the body.
  const sample = await get(url, headers);
  if (sample.status !== 200) throw new Error(`${url} answered ${sample.status}`);
  const encoding = sample.encoding;
  const dir = mkdtempSync(join(tmpdir(), "perf-floor-"));
  const file = join(dir, "body");
  writeFileSync(file, sample.body);
  const floor = await startFloor(floorPort, file, encoding);
  const floorUrl = `http://127.0.0.1:${floorPort}${new URL(url).pathname}${LANDING.query}`;
  try {
    const opts = { duration, connections, headers, tool };
    // Warm both (JIT, the page cache) before measuring.
    await load(url, { ...opts, duration: 2 });
    await load(floorUrl, { ...opts, duration: 1 });
    const app = [];
    const bare = [];
    const appP99 = [];
    const floorP99 = [];
    let errors = 0;
    for (let i = 0; i < rounds; i++) {
      const site = await load(url, opts);
      const floor = await load(floorUrl, opts);
      errors += site.errors + floor.errors;
      app.push(site.rps);
      bare.push(floor.rps);
      appP99.push(site.p99Ms);
      floorP99.push(floor.p99Ms);
    }
    return {
      tool,
      appRps: median(app),
      floorRps: median(bare),
      appP99Ms: median(appP99),
      floorP99Ms: median(floorP99),
      // Each round's two runs are back to back, so their ratio is the least disturbed figure.
      ratio: median(app.map((a, i) => a / bare[i])),
      bytes: sample.body.length,
      encoding: encoding ?? "identity",
      errors,
      cpus: { servers: SERVER_CPUS, load: LOAD_CPUS },
      app,
      floor: bare,
    };
  } finally {
    floor.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One GET exactly as autocannon sends it: the body as it came over the wire, undecoded. */
export function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

// Against a running server: node scripts/perf/throughput.mjs http://127.0.0.1:3400/ [floorPort] [accept-encoding] [autocannon|wrk]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url = "http://127.0.0.1:3400/", floorPort = "3499", acceptEncoding, tool = "wrk"] = process.argv.slice(2);
  const headers = acceptEncoding ? { "accept-encoding": acceptEncoding } : {};
  console.log(JSON.stringify(await measureThroughput({ url, floorPort: Number(floorPort), headers, tool })));
}

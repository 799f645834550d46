/**
 * Requests per second of one page under the production server, against the floor: the very bytes
 * that page returned, served from memory by bare node:http (floor-server.mjs) in another process.
 * Both are loaded in the same run, alternating, by autocannon on 127.0.0.1 only.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const floorScript = fileURLToPath(new URL("./floor-server.mjs", import.meta.url));

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") throw new Error(`refusing to load-test ${host}: loopback only`);
}

function load(url, { duration, connections, headers }) {
  assertLoopback(url);
  return new Promise((resolve, reject) => {
    autocannon({ url, duration, connections, headers }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function startFloor(port, file, encoding) {
  const child = fork(floorScript, [String(port), file, ...(encoding ? [encoding] : [])], { stdio: "ignore" });
  await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`floor server exited with ${code}`)));
  });
  return child;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * @param {object} o
 * @param {string} o.url         page on the production server, e.g. http://127.0.0.1:3400/
 * @param {number} o.floorPort   a free port for the floor server
 * @param {Record<string,string>} [o.headers]  request headers (e.g. accept-encoding)
 * @param {number} [o.rounds]    alternating rounds; the medians are reported
 * @param {number} [o.duration]  seconds per measurement
 * @param {number} [o.connections]
 */
export async function measureThroughput({ url, floorPort, headers = {}, rounds = 5, duration = 3, connections = 10 }) {
  assertLoopback(url);
  // node:http, not fetch(): fetch adds its own Accept-Encoding and decodes the body.
  const sample = await get(url, headers);
  if (sample.status !== 200) throw new Error(`${url} answered ${sample.status}`);
  const encoding = sample.encoding;
  const raw = sample.body;
  const dir = mkdtempSync(join(tmpdir(), "perf-floor-"));
  const file = join(dir, "body");
  writeFileSync(file, raw);
  const floor = await startFloor(floorPort, file, encoding);
  const floorUrl = `http://127.0.0.1:${floorPort}${new URL(url).pathname}`;
  try {
    const opts = { duration, connections, headers };
    // Warm both (JIT, caches) before measuring.
    await load(url, { ...opts, duration: 2 });
    await load(floorUrl, { ...opts, duration: 1 });
    const app = [];
    const bare = [];
    let errors = 0;
    for (let i = 0; i < rounds; i++) {
      const a = await load(url, opts);
      const b = await load(floorUrl, opts);
      errors += a.errors + a.non2xx + b.errors + b.non2xx;
      app.push(a.requests.average);
      bare.push(b.requests.average);
    }
    const appRps = median(app);
    const floorRps = median(bare);
    // Each round's app and floor runs are back to back, so their ratio is the least disturbed by
    // whatever else the machine is doing; report the median of those.
    const ratio = median(app.map((a, i) => a / bare[i]));
    return { appRps, floorRps, ratio, bytes: raw.length, encoding: encoding ?? "identity", errors, app, floor: bare };
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

// Run directly: node scripts/perf/throughput.mjs http://127.0.0.1:3400/ [floorPort] [accept-encoding]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url = "http://127.0.0.1:3400/", floorPort = "3499", acceptEncoding] = process.argv.slice(2);
  const headers = acceptEncoding ? { "accept-encoding": acceptEncoding } : {};
  const r = await measureThroughput({ url, floorPort: Number(floorPort), headers });
  console.log(JSON.stringify(r));
}

/**
 * `npm run perf:ceiling`: how high the throughput ratio can go under remix-serve at all.
 *
 * Serves the current build twice with remix-serve: as built, and as a copy whose entry.server
 * handleRequest returns the home page's bytes at once (no nonce, no headers, no cache lookup:
 * none of this project's per-request work). Both are measured against the same bare node:http
 * floor as `npm run perf` (scripts/perf/throughput.mjs). What separates the copy from the floor is
 * remix-serve itself: Express, compression, morgan, the public/ file check and Remix's request
 * handling (route matching, Request/Response objects). Run `npm run build` first.
 *
 * Environment: PERF_PORT (default 3400; this uses PERF_PORT+10 to +12).
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.mjs";
import { get, measureThroughput } from "./throughput.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const base = Number(process.env.PERF_PORT || 3400) + 10;
// Inside the project, so the copy resolves the same node_modules as the real build.
const copyDir = join(root, "perf/ceiling.tmp");

const servers = [];
try {
  servers.push(await startServer({ port: base, logName: "ceiling-real" }));
  const page = (await get(`http://127.0.0.1:${base}/`)).body;

  // The copy: same build, handleRequest answers with the page's bytes before doing anything.
  rmSync(copyDir, { recursive: true, force: true });
  mkdirSync(join(copyDir, "build"), { recursive: true });
  copyFileSync(join(root, "build/version.txt"), join(copyDir, "build/version.txt"));
  writeFileSync(join(copyDir, "page.html"), page);
  const source = readFileSync(join(root, "build/index.js"), "utf8");
  const anchor = "async function handleRequest(request, responseStatusCode, responseHeaders, remixContext) {";
  if (!source.includes(anchor)) throw new Error("entry.server's handleRequest not found in build/index.js; update the anchor in scripts/perf/ceiling.mjs");
  const shortCut = `${anchor}\n  if (!request.url.includes("/healthz")) return new Response(CEILING_PAGE, { headers: { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(CEILING_PAGE.length) } });`;
  const load = `import { readFileSync as ceilingRead } from "node:fs";\nconst CEILING_PAGE = ceilingRead(${JSON.stringify(join(copyDir, "page.html"))});\n`;
  writeFileSync(join(copyDir, "build/index.js"), load + source.replace(anchor, shortCut));
  servers.push(await startServer({ buildFile: join(copyDir, "build/index.js"), port: base + 1, logName: "ceiling-copy" }));

  const results = {};
  for (const [name, port] of [["as built", base], ["handler does nothing", base + 1]]) {
    console.error(`==> ${name}`);
    results[name] = await measureThroughput({ url: `http://127.0.0.1:${port}/`, floorPort: base + 2 });
  }
  console.log("| remix-serve build | req/s | floor req/s | ratio |");
  console.log("|---|---|---|---|");
  for (const [name, r] of Object.entries(results)) console.log(`| ${name} | ${Math.round(r.appRps)} | ${Math.round(r.floorRps)} | ${r.ratio.toFixed(3)} |`);
} finally {
  servers.forEach((s) => s.stop());
  rmSync(copyDir, { recursive: true, force: true });
}

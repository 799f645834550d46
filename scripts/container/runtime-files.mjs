/**
 * The image's node_modules, in its build stage after `npm run build`: only the files the built
 * server and the lead command can load, as @vercel/nft traces them from their imports and
 * requires, copied to OUT_DIR/node_modules. Left out: dev tools, peers nothing loads (typescript),
 * and every file no code reaches: types, sources, other builds, most of the polyfills that
 * `@remix-run/node` brings for older Nodes (decision 0022).
 * Usage: node scripts/container/runtime-files.mjs OUT_DIR
 */
import { cpSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { nodeFileTrace } from "@vercel/nft";

const out = process.argv[2];
if (!out) throw new Error("usage: runtime-files.mjs OUT_DIR");

// build/index.js too: the server imports the Remix build by a computed URL, which no tracer follows.
const entries = ["build/server/index.js", "build/server/leads.js", "build/index.js"];
// Packages only the development tools need ("dev" in the lockfile) stay out even where a runtime
// package would load them if present (debug tries supports-color), as `npm install --omit=dev` has it.
const { packages } = JSON.parse(readFileSync("package-lock.json", "utf8"));
const packageOf = (file) => file.match(/^(node_modules\/(@[^/]+\/)?[^/]+\/)*node_modules\/(@[^/]+\/)?[^/]+/)?.[0];
const ignore = (file) => packages[packageOf(file)]?.dev === true;
const { fileList } = await nodeFileTrace(entries, { base: process.cwd(), ignore });
let bytes = 0;
let count = 0;
for (const file of fileList) {
  if (!file.startsWith("node_modules/")) continue;
  cpSync(file, join(out, file));
  bytes += statSync(file).size;
  count += 1;
}
console.log(`runtime-files: ${count} files, ${(bytes / 1e6).toFixed(1)} MB from node_modules`);

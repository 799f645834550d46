/**
 * Second half of `npm run build`, after `remix build`: bundles the Express server (server/*.ts)
 * and the operator's lead command into build/server/, and writes brotli (quality 11) and gzip twins of every script and
 * stylesheet under public/build/, which the server sends to browsers that accept them.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));

await build({
  entryPoints: { index: "server/index.ts", leads: "server/leads/cli.ts" },
  outdir: "build/server",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  // npm packages stay in node_modules; the app modules the server shares (`~/…`) are bundled.
  external: [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)],
  logLevel: "warning",
});

const assets = "public/build";
if (existsSync(assets)) {
  for (const entry of readdirSync(assets, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(js|css)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const bytes = readFileSync(file);
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    );
    writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  }
}

/**
 * An earlier commit of the site, built outside the repository, for Lighthouse to measure beside
 * this change in the same run (PERF_BASE, default 81d3895). `git archive` of the commit
 * into the system's temporary folder, its own `npm ci` and `npm run build` (kept for the next run),
 * and its server started by its own scripts/perf/site.mjs, so it runs as it did then.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../serve.mjs";
import { step } from "./machine.mjs";

/** @returns {Promise<{ url: string, commit: string, stop: () => Promise<void> }>} */
export async function startBase(commit, port) {
  const sha = execFileSync("git", ["rev-parse", "--short", `${commit}^{commit}`], { cwd: REPO, encoding: "utf8" }).trim();
  const dir = join(tmpdir(), `perf-base-${sha}`);
  if (!existsSync(join(dir, "build/server/index.js"))) {
    step(`building ${sha} in ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C "${dir}"`], { cwd: REPO });
    const env = { ...process.env, PATH: `${join(dir, "node_modules/.bin")}:${process.env.PATH}` };
    for (const args of [
      ["ci", "--no-audit", "--no-fund"],
      ["run", "build"],
    ]) {
      const { status, stderr } = spawnSync("npm", args, { cwd: dir, env, encoding: "utf8" });
      if (status !== 0) {
        console.error(stderr);
        rmSync(join(dir, "build"), { recursive: true, force: true });
        throw new Error(`npm ${args.join(" ")} in ${dir} failed (exit ${status})`);
      }
    }
  }
  const { startSite } = await import(pathToFileURL(join(dir, "scripts/perf/site.mjs")).href);
  const site = await startSite(port, {}, "base");
  return { url: site.url, commit: sha, stop: site.stop };
}

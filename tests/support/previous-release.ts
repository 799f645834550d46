/**
 * The release before, the only one upgrades are supported from (move PREVIOUS_RELEASE on with each
 * release), built once a run from this repository's history (`git archive`, the checkout's
 * node_modules linked when its packages are the same, else `npm ci`; then `npm run build`), so
 * a fresh clone has it. A worker that needs it while another builds it waits on a lock folder.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runEnv } from "../../scripts/test-run.mjs";
import { REPO, type serve, sleep } from "./server";
import { e2eDir } from "./sites";

/** Main before issue 47 took out the migrations older than schema 4: the store as operators have it. */
const PREVIOUS_RELEASE = "81d3895";

const run = (cwd: string, command: string, ...args: string[]) => execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const packages = (dir: string) => {
  const { dependencies, devDependencies } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  return JSON.stringify({ dependencies, devDependencies });
};

function build(dir: string) {
  try {
    run(REPO, "git", "cat-file", "-e", `${PREVIOUS_RELEASE}^{commit}`);
  } catch {
    throw new Error(`the release before, ${PREVIOUS_RELEASE}, is not in this repository's history (a shallow clone? git fetch --unshallow)`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run(REPO, "git", "archive", "--output", join(dir, "release.tar"), PREVIOUS_RELEASE);
  run(dir, "tar", "-xf", "release.tar");
  if (packages(dir) === packages(REPO)) symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  else run(dir, "npm", "ci", "--no-audit", "--no-fund");
  run(dir, "npm", "run", "build");
  writeFileSync(join(dir, ".built"), "");
}

/** The release before, built (by this worker, or waited for while another builds it): its own serve, and its `npm run -s leads -- …`. */
export async function previousRelease() {
  const dir = join(e2eDir, `release-${PREVIOUS_RELEASE}`);
  const [built, lock] = [join(dir, ".built"), `${dir}.lock`];
  for (const deadline = Date.now() + 180_000; !existsSync(built); await sleep(500)) {
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`the release before's build at ${dir}, by another worker, did not finish`);
      continue;
    }
    try {
      build(dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  const own = (await import(pathToFileURL(join(dir, "scripts/serve.mjs")).href)) as { serve: typeof serve };
  const leads = (args: string[], env: Record<string, string>) =>
    execFileSync(process.execPath, ["build/server/leads.js", ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...runEnv(), ...env },
    });
  return { serve: own.serve, leads };
}

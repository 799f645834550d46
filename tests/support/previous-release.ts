/**
 * The release before this one, built from this repository's own history, for the rollback tests
 * (issue 41): a fresh clone has it, so the tests never depend on a build left on one machine.
 * `PREVIOUS_RELEASE` is the one place that names it: move it on when a release changes what the
 * store holds, so a rollback is tested against the release an operator would go back to.
 *
 * Built once per test run, into the run's folder (which the next run removes): `git archive` of
 * the commit, the checkout's node_modules linked when the commit's package.json asks for the same
 * packages (else its own `npm ci`, which needs the registry), then its own `npm run build`.
 * Workers that need it at once wait for the one that builds it (a lock folder).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runEnv } from "../../scripts/test-run.mjs";
import { REPO, type serve } from "./server";
import { e2eDir } from "./sites";

/** Main when upgrade and rollback were first tested (issue 41): the store as operators have it. */
const PREVIOUS_RELEASE = "682ddbcf5e9b9f02b8958df7af36e0e16dc750e6";

export interface PreviousRelease {
  dir: string;
  /** Its own scripts/serve.mjs: its build, started from its folder. */
  serve: typeof serve;
  /** Its `npm run -s leads -- …` on a data folder (or DATABASE_URL in `env`), as an operator runs it. */
  leads(args: string[], env: Record<string, string>): string;
}

const run = (cwd: string, command: string, args: string[]) => execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const packages = (dir: string) => {
  const { dependencies, devDependencies } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  return JSON.stringify({ dependencies, devDependencies });
};

function build(dir: string) {
  try {
    run(REPO, "git", ["cat-file", "-e", `${PREVIOUS_RELEASE}^{commit}`]);
  } catch {
    throw new Error(
      `the previous release, ${PREVIOUS_RELEASE}, is not in this repository's history (a shallow clone? git fetch --unshallow): the rollback tests build it from there`,
    );
  }
  mkdirSync(dir, { recursive: true });
  run(REPO, "git", ["archive", "--output", join(dir, "release.tar"), PREVIOUS_RELEASE]);
  run(dir, "tar", ["-xf", "release.tar"]);
  if (packages(dir) === packages(REPO)) symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  else run(dir, "npm", ["ci", "--no-audit", "--no-fund"]);
  run(dir, "npm", ["run", "build"]);
  writeFileSync(join(dir, ".built"), "");
}

/** The previous release, built (by this worker, or waited for while another builds it). */
export async function previousRelease(): Promise<PreviousRelease> {
  const dir = join(e2eDir, `release-${PREVIOUS_RELEASE.slice(0, 7)}`);
  const lock = `${dir}.lock`;
  if (!existsSync(join(dir, ".built"))) {
    let mine = false;
    try {
      mkdirSync(lock, { recursive: false });
      mine = true;
    } catch {
      // Another worker builds it.
    }
    if (mine) {
      try {
        rmSync(dir, { recursive: true, force: true });
        build(dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else
      for (const deadline = Date.now() + 180_000; !existsSync(join(dir, ".built")); await new Promise((resolve) => setTimeout(resolve, 500)))
        if (Date.now() > deadline || !existsSync(lock)) throw new Error(`the previous release's build at ${dir}, by another worker, did not finish`);
  }
  const own = (await import(pathToFileURL(join(dir, "scripts/serve.mjs")).href)) as { serve: typeof serve };
  const leads = (args: string[], env: Record<string, string>) =>
    execFileSync(process.execPath, ["build/server/leads.js", ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...runEnv(), ...env },
    });
  return { dir, serve: own.serve, leads };
}

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { newRun, owned, runAlive } from "./test-run.mjs";

const SCRIPT = new URL("./test-run.mjs", import.meta.url).pathname;
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
/** Running: not gone, and not a zombie waiting to be reaped. */
const alive = (pid: number) => /\) [^Z] /.test(read(`/proc/${pid}/stat`));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  return check();
};
/** A process that would run for a minute, carrying `run` (if given) as a test run's processes do. */
function marked(run?: string) {
  const child = spawn("sleep", ["60"], { env: run ? { ...process.env, AGENCY_TEST_RUN: run } : process.env, stdio: "ignore" });
  started.push(child);
  return child;
}
/** The script as the test command runs it: its exit code and output. */
const script = (...args: string[]) =>
  promisify(execFile)(process.execPath, [SCRIPT, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );

describe("a test run's processes (scripts/test-run.mjs)", () => {
  it("the end-of-run check names what the run still has running, stops it and fails; a second check passes", async () => {
    const owner = marked();
    const run = newRun(owner.pid);
    const left = marked(run);
    const other = marked(newRun(marked().pid)); // another live run's: not this check's business
    const { code, stdout } = await script("check", run);
    expect(code).toBe(1);
    expect(stdout).toContain(`pid ${left.pid}: sleep 60`);
    expect(stdout).not.toContain(`pid ${other.pid}`);
    expect(await until(() => !alive(left.pid!))).toBe(true);
    expect(alive(other.pid!)).toBe(true);
    expect((await script("check", run)).code).toBe(0);
  });

  it("the check finds what is under the run's owner even when its environment no longer names the run (a process title written over it)", async () => {
    const { AGENCY_TEST_RUN: _, ...unmarked } = process.env;
    // The owner's child carries no id at all: found by ancestry alone.
    const owner = spawn("sh", ["-c", "sleep 61 & echo $!; wait"], { env: unmarked, stdio: ["ignore", "pipe", "ignore"] });
    started.push(owner);
    const child = Number(await new Promise<string>((resolve) => owner.stdout!.once("data", (d) => resolve(String(d)))));
    const { code, stdout } = await script("check", newRun(owner.pid));
    expect(code).toBe(1);
    expect(stdout).toContain(`pid ${child}: sleep 61`);
    expect(await until(() => !alive(child))).toBe(true);
  });

  it("a run is alive while its owner runs (a reused pid is not taken for it); reap stops what a run whose owner is gone left, not a live run's", async () => {
    const owner = marked();
    const deadRun = newRun(owner.pid);
    expect([runAlive(deadRun), runAlive(`${owner.pid}.1`)], "alive; the same pid with another start time").toEqual([true, false]);
    owner.kill("SIGKILL");
    expect(await until(() => !runAlive(deadRun))).toBe(true);
    const orphan = marked(deadRun);
    const live = marked(newRun(process.pid));
    // (The end-to-end tests' global setup reaps too, so the orphan may already be gone when this runs.)
    expect((await script("reap")).code).toBe(0);
    expect(await until(() => !alive(orphan.pid!))).toBe(true);
    expect(alive(live.pid!)).toBe(true);
  });

  // As root, run as another user too (the tests' PostgreSQL): the kernel clears the death signal
  // on a switch of user made after it was set.
  it.each(process.getuid?.() === 0 ? ["this user", "nobody"] : ["this user"])(
    "a process started through owned() as %s dies with the process that started it, even by SIGKILL",
    async (user) => {
      // A parent that starts an owned sleep, prints its pid, and then waits to be killed.
      const parentCode = `
      const { spawn } = require("node:child_process");
      const [command, args] = ${JSON.stringify(owned("sleep", ["60"], "KILL", user === "nobody" ? user : undefined))};
      const child = spawn(command, args, { stdio: "ignore" });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
      const parent = spawn(process.execPath, ["-e", parentCode], { stdio: ["ignore", "pipe", "ignore"] });
      started.push(parent);
      const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once("data", (d) => resolve(String(d)))));
      // Until setpriv has set the death signal and become the sleep: a parent killed before that
      // (a busy machine) leaves setpriv nothing to act on, which no wrapper can close.
      expect(await until(() => read(`/proc/${pid}/comm`).trim() === "sleep")).toBe(true);
      parent.kill("SIGKILL");
      expect(await until(() => !alive(pid)), "the owned child outlived its parent").toBe(true);
    },
  );
});

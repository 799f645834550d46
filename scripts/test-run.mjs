/**
 * What a test run owns, so that nothing it starts outlives it (docs/testing.md, decision 0019).
 *
 * A run has an id, AGENCY_TEST_RUN: the pid and start time of the process that owns it (the test
 * command, or Playwright's runner when run alone). Every process the run starts carries the id in
 * its environment: children inherit it, and the spawners that build an environment from scratch
 * (scripts/serve.mjs, `npm run leads` in the tests) pass it on. So the end of a run can find what
 * it left running, and the next run what a killed run (kill -9) left, whatever their ports.
 * Containers are labelled with it (tests/support/podman.ts).
 *
 * Each long-lived process a test starts also gets SIGKILL when the process that started it dies
 * (`setpriv --pdeathsig`, util-linux): a Playwright worker torn down after a failed or timed-out
 * test, or a runner killed outright, takes its servers with it.
 *
 *   node scripts/test-run.mjs new PID    prints a run id owned by process PID
 *   node scripts/test-run.mjs reap       stops what runs whose owner is gone left behind
 *   node scripts/test-run.mjs check ID   names what run ID still has running, stops it, exits 1 if any
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const VARIABLE = "AGENCY_TEST_RUN";
const SETPRIV = "/usr/bin/setpriv";

/**
 * A process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or undefined if
 * it is gone (a zombie, dead and not yet reaped, is gone too).
 */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** A new run's id: its owner's pid and start time, so a reused pid is never taken for the owner. */
export const newRun = (pid = process.pid) => `${pid}.${startTime(pid)}`;

/** Whether the process that owns `run` is still running. */
export function runAlive(run) {
  const [pid, started] = String(run).split(".");
  return startTime(pid) !== undefined && startTime(pid) === started;
}

/** The variable to pass on to a process started with an environment of its own making. */
export const runEnv = () => (process.env[VARIABLE] ? { [VARIABLE]: process.env[VARIABLE] } : {});

/**
 * `command` and `args` wrapped so that the process gets `signal` (KILL, or TERM for a server that
 * must stop processes of its own) when the one spawning it dies; setpriv then execs the command,
 * so the pid is the command's own. Spread into spawn: `spawn(...owned("varnishd", args), options)`.
 * `user`: run it as that user, its group and groups (PostgreSQL refuses root). The same setpriv must do
 * both: it sets the death signal after switching, while the kernel clears it on a switch made
 * after (a second setpriv inside the first).
 * @param {string} command
 * @param {string[]} [args]
 * @param {"KILL" | "TERM"} [signal]
 * @param {string} [user]
 * @returns {[string, string[]]}
 */
export function owned(command, args = [], signal = "KILL", user = undefined) {
  const as = user ? [`--reuid=${user}`, `--regid=${execFileSync("id", ["-g", user], { encoding: "utf8" }).trim()}`, "--init-groups"] : [];
  return existsSync(SETPRIV) ? [SETPRIV, ["--pdeathsig", signal, ...as, "--", command, ...args]] : [command, args];
}

/** Every process carrying a run id: { pid, run, command }. */
function marked() {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1").split("\0");
      const entry = environ.find((e) => e.startsWith(`${VARIABLE}=`));
      if (!entry) continue;
      const command = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 160);
      found.push({ pid: Number(name), run: entry.slice(VARIABLE.length + 1), command });
    } catch {
      // gone meanwhile, or a kernel thread
    }
  }
  return found;
}

/** A process's parent's pid, or 0 if it is gone. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

/** `pid` (this process, unless named) and its ancestors: they carry the id too, and are not leftovers. */
function ancestors(pid = process.pid) {
  const chain = new Set();
  for (; pid > 1 && !chain.has(pid); pid = parentOf(pid)) chain.add(pid);
  return chain;
}

/**
 * Processes still under a live run's owner, marked or not: PostgreSQL, nginx and Chromium's helpers
 * write their process title over their environment, so /proc/PID/environ no longer names the run.
 */
function descendants(owner) {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === owner || !ancestors(Number(name)).has(owner)) continue;
    try {
      const command = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 160);
      if (command) found.push({ pid: Number(name), run: "", command });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Containers labelled with a run id (none where podman is missing): { name, run }. */
function containers() {
  if (!["/usr/bin/podman", "/usr/local/bin/podman"].some(existsSync)) return [];
  try {
    const out = execFileSync("podman", ["ps", "-a", "--filter", `label=${VARIABLE}`, "--format", `{{.Names}} {{index .Labels "${VARIABLE}"}}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 60_000,
    });
    return out
      .split("\n")
      .filter(Boolean)
      .map((line) => ({ name: line.split(" ")[0], run: line.split(" ")[1] }));
  } catch {
    return [];
  }
}

/** SIGKILL, then wait (up to 10 s) until each is gone: a port or a file it held is free after. */
async function stop(processes, boxes) {
  for (const { pid } of processes) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  if (boxes.length) execFileSync("podman", ["rm", "-f", "-t", "0", ...boxes.map((b) => b.name)], { stdio: "ignore", timeout: 120_000 });
  for (let i = 0; i < 100 && processes.some(({ pid }) => startTime(pid) !== undefined); i++) await new Promise((r) => setTimeout(r, 100));
}

const describe = (processes, boxes) => [...processes.map((p) => `  pid ${p.pid}: ${p.command}`), ...boxes.map((b) => `  container ${b.name}`)].join("\n");

/** Stops what runs whose owner has gone (killed, or ended without a check) left running. */
export async function reap() {
  const processes = marked().filter((p) => !runAlive(p.run));
  const boxes = containers().filter((b) => !runAlive(b.run));
  if (processes.length + boxes.length === 0) return;
  console.log(`==> stopping what earlier runs, since ended, left running:\n${describe(processes, boxes)}`);
  await stop(processes, boxes);
}

/** Names and stops what `run` still has running; whether there was anything. */
async function check(run) {
  const mine = ancestors();
  const owner = Number(String(run).split(".")[0]);
  const listed = [...marked().filter((p) => p.run === run), ...(runAlive(run) ? descendants(owner) : [])];
  const processes = listed.filter((p, i) => !mine.has(p.pid) && listed.findIndex((q) => q.pid === p.pid) === i);
  const boxes = containers().filter((b) => b.run === run);
  if (processes.length + boxes.length === 0) return false;
  console.log(`FAILED: still running after the run, now stopped:\n${describe(processes, boxes)}`);
  await stop(processes, boxes);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [verb, arg] = process.argv.slice(2);
  if (verb === "new") console.log(newRun(Number(arg)));
  else if (verb === "reap") await reap();
  else if (verb === "check") {
    if (await check(arg)) process.exit(1);
    console.log("==> nothing the run started is still running");
  } else {
    console.error("usage: test-run.mjs new PID | reap | check RUN");
    process.exit(2);
  }
}

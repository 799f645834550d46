/**
 * Starts the built server (`node build/server/index.js`, what `npm start` and the container run)
 * as a child process with an environment built from scratch, so nothing from the caller leaks in.
 * The operations tests and the perf scripts both start servers with it.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { owned, runEnv } from "./test-run.mjs";

export const REPO = fileURLToPath(new URL("..", import.meta.url));

/**
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, at: number }} Exit
 * @typedef {object} Served
 * @property {string} url          e.g. http://127.0.0.1:3310
 * @property {number} port
 * @property {import("node:child_process").ChildProcess} child
 * @property {() => string} stdout  what the server printed so far (empty when logging to a file)
 * @property {() => string} stderr
 * @property {Promise<void>} listening  resolves on the server's "start" line; rejects if it exits first
 * @property {Promise<Exit>} exited
 * @property {() => void} kill      SIGKILL, if still running
 */

/**
 * @param {number} port
 * @param {Record<string, string>} [env]  added to a minimal production environment (DATA_DIR: a new
 *   temporary folder unless given)
 * @param {{ logFile?: string, cpus?: string }} [options]  logFile: send the output there instead
 *   of keeping it in memory; cpus: pin the server to these cores with taskset (e.g. "0")
 * @returns {Served}
 */
export function serve(port, env = {}, { logFile, cpus } = {}) {
  // A fresh data folder unless the caller names one: a folder kept per port carried one run's leads
  // into the next (a flood's messages were "the same form again" an hour later).
  const data = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), `agency-site-serve-${port}-`));
  const fullEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: data,
    // A test run's id (scripts/test-run.mjs), so the run can tell this server is its own.
    ...runEnv(),
    ...env,
  };
  let output = "ignore";
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    output = openSync(logFile, "w");
  }
  // Killed if the process that starts it dies (a test's worker torn down, a runner killed).
  const node = owned(process.execPath, ["build/server/index.js"]);
  const [command, args] = cpus ? ["taskset", ["-c", cpus, node[0], ...node[1]]] : node;
  const child = spawn(command, args, {
    cwd: REPO,
    env: fullEnv,
    stdio: ["ignore", logFile ? output : "pipe", logFile ? output : "pipe"],
  });
  let stdout = "";
  let stderr = "";
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })));
  const url = `http://127.0.0.1:${port}`;
  const listening = new Promise((resolve, reject) => {
    void exited.then(({ code }) => reject(new Error(`the server exited (${code}) before listening:\n${stdout}\n${stderr}`)));
    if (logFile) return void waitForHealth(url).then(resolve, reject);
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes('"event":"start"')) resolve(undefined);
    });
    child.stderr?.on("data", (chunk) => (stderr += chunk));
  });
  listening.catch(() => undefined); // a test that expects an early exit never awaits it
  return {
    url,
    port,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    listening,
    exited,
    kill: () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")),
  };
}

async function waitForHealth(url, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer /healthz within ${timeoutMs} ms`);
}

/**
 * Operations tests: start the built app (`build/`, made by `npm run build` before Playwright runs)
 * with remix-serve as the container does, one process per test on its own port, with an
 * environment built from scratch so nothing from the test run leaks in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(REPO, "node_modules/@remix-run/serve/dist/cli.js");

export interface Served {
  url: string;
  port: number;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when remix-serve prints its listening line; rejects if the process exits first. */
  listening: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** SIGKILL if still running (cleanup). */
  kill(): void;
}

export function serve(port: number, env: Record<string, string> = {}): Served {
  const fullEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    OUTBOX_FILE: join(tmpdir(), "agency-site-ops", `outbox-${port}.jsonl`),
    ...env,
  } as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, [CLI, "build/index.js"], { cwd: REPO, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d;
      if (stdout.includes("[remix-serve] http://")) resolve();
    });
    child.stderr!.on("data", (d: Buffer) => (stderr += d));
    void exited.then(({ code }) => reject(new Error(`remix-serve exited (${code}) before listening:\n${stdout}\n${stderr}`)));
  });
  listening.catch(() => undefined); // tests that expect an early exit never await it
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    listening,
    exited,
    kill: () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")),
  };
}

/** Whether a TCP connection to 127.0.0.1:port is accepted right now. */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Answer {
  status: number;
  location: string | undefined;
  /** Date.now() when the response arrived. */
  at: number;
}

/**
 * POSTs a valid contact form to the home page's action as a browser without JavaScript would
 * (same-origin, urlencoded), over node:http with its default keep-alive agent, redirects not
 * followed. `message` should carry a token to find the submission at the fake form service.
 */
export function postContact(url: string, message: string): Promise<Answer> {
  const body = new URLSearchParams({ formName: "contact", name: "Ada Lovelace", email: "ada@example.com", service: "seo", message }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/?index`,
      {
        method: "POST",
        headers: { Origin: url, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, at: Date.now() }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

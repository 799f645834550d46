/** Helpers for tests that start their own server (scripts/serve.mjs) and talk to it over plain HTTP. */
import { expect } from "@playwright/test";
import { type ChildProcess, execFile } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { REPO } from "../../scripts/serve.mjs";
import { runEnv } from "../../scripts/test-run.mjs";
import { e2eDir, TEST_ACCESS_KEY } from "./sites";

export { REPO, serve, type Served } from "../../scripts/serve.mjs";

/** A server's log as records: every line it writes is one JSON object (this throws on one that is not). */
export const events = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A fresh data folder for a server of a test's own, in this run's folder (the next run removes it). */
export function dataDir() {
  mkdirSync(e2eDir, { recursive: true });
  return mkdtempSync(join(e2eDir, "ops-"));
}

/** A server's settings to deliver to this fake form service, its data in `dir`. */
export const keyed = (fake: { submitUrl: string }, dir: string, extra: Record<string, string> = {}) => ({
  FORM_ACCESS_KEY: TEST_ACCESS_KEY,
  FORM_ENDPOINT: fake.submitUrl,
  DATA_DIR: dir,
  ...extra,
});

/** The operator's `npm run -s leads -- …` on a data folder, run without npm (whose start doubles a call's CPU) unless `npm`. */
export const leadsCommand =
  (dir: string, env: Record<string, string> = {}, { npm = false } = {}) =>
  (...args: string[]) => {
    const [program, words] = npm ? ["npm", ["run", "-s", "leads", "--", ...args]] : [process.execPath, ["build/server/leads.js", ...args]];
    const vars: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: dir, ...runEnv(), ...env };
    return promisify(execFile)(program, words, { cwd: REPO, env: vars });
  };

/** `leads -- list`'s rows on a data folder, each its columns (id, kind, status, age, arrived, reason, address). */
export const listed = async (dir: string) =>
  (await leadsCommand(dir)("list")).stdout
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t"));

/** Whether a TCP connection to 127.0.0.1:port is accepted right now. */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGSTOP a server while it holds no write lock on `dir`'s lead store (one paused mid-write keeps
 * every writer out, a fault of its own): stopped, this process takes the lock and lets it go, or
 * lets the server finish its write and tries again.
 */
export async function pauseBetweenWrites(child: ChildProcess, dir: string) {
  const db = new DatabaseSync(join(dir, "leads.db"), { timeout: 0 });
  try {
    for (let attempt = 1; ; attempt++) {
      child.kill("SIGSTOP");
      try {
        return void db.exec("BEGIN IMMEDIATE; ROLLBACK");
      } catch (error) {
        if (attempt === 50) throw error;
      }
      child.kill("SIGCONT");
      await sleep(20);
    }
  } finally {
    db.close();
  }
}

/**
 * Every lead marked with one of `tokens` reaches the fake service within `within` ms, and after
 * `settle` ms more still only once: 3 s hold a retry (1-2 s after a failure) or any server's next
 * look (every 2 s); a test whose second send would come later (a claim's) passes more, saying why.
 */
export async function deliveredOnce(fake: { accepted(token: string): unknown[] }, tokens: string[], { within = 30_000, settle = 3_000 } = {}) {
  const counts = () => tokens.map((t) => fake.accepted(t).length);
  await expect.poll(counts, { timeout: within }).toEqual(tokens.map(() => 1));
  await sleep(settle);
  expect(counts(), "each exactly once").toEqual(tokens.map(() => 1));
}

/** An answer: its body (the page with the failure text, when a lead was not stored), and Date.now() when it arrived. */
export type Answer = { status: number; headers: IncomingHttpHeaders; body: string; at: number };

/** POSTs `fields` urlencoded to `url` with `headers`, from `localAddress` if given; redirects not followed; cut after `timeout` ms idle. */
export function postForm(url: string, fields: Record<string, string>, headers: Record<string, string>, localAddress?: string, timeout?: number) {
  const body = new URLSearchParams(fields).toString();
  const all = { ...headers, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) };
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, { method: "POST", localAddress, headers: all, timeout }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, at: Date.now() }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A valid contact form posted as a browser without JavaScript would, or with `js` as Remix's fetch
 * does (`_data`: a 204 naming the thanks in X-Remix-Redirect, or the action's JSON); `message`
 * carries a token to find it at the fake service; `localAddress` (127.0.0.2, …) is a client of its own.
 */
export function postContact(
  url: string,
  message: string,
  {
    localAddress,
    name = "Ada Lovelace",
    email = "ada@example.com",
    forwardedFor,
    js = false,
  }: { localAddress?: string; name?: string; email?: string; forwardedFor?: string; js?: boolean } = {},
): Promise<Answer> {
  const fields = { formName: "contact", name, email, service: "seo", message };
  const headers = { Origin: url, ...(forwardedFor ? { "X-Forwarded-For": forwardedFor } : {}) };
  return postForm(`${url}/?index${js ? "&_data=routes%2F_index" : ""}`, fields, headers, localAddress);
}

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
/** The wizard's beacon for `event` (countSteps in app/funnel/visit.ts) from a desktop Chrome, with a landing: its answer's status. */
export const beacon = async (url: string, event: string, { landing = "", localAddress }: { landing?: string; localAddress?: string } = {}) =>
  (await postForm(`${url}/steps`, { event, "visit.landing": landing }, { "Sec-Fetch-Site": "same-origin", "User-Agent": CHROME }, localAddress)).status;

/** Sends `head` (request line and headers, CRLF-separated) over a bare socket; resolves with the status line's code. */
export function rawRequest(port: number, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let reply = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head}\r\n\r\n`));
    socket.on("data", (chunk) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec((reply += chunk))?.[1];
      if (!status) return;
      resolve(Number(status));
      socket.destroy();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(0));
  });
}

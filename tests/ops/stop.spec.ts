/**
 * The stop's promise (docs/operations.md#stopping): on SIGTERM the server is gone within 15 s with
 * exit code 0, whichever process gets the signal (`npm start`'s, its process group, or the server's
 * own), with its output on a pipe or socket that nobody reads or whose reader has gone, with a
 * delivery or a Zoho token refresh hanging, with its PostgreSQL down or paused (decision 0040).
 * Real processes: `npm start` (the README's command) or `node build/server/index.js`, each in a
 * process group of its own, so "gone" means no process of the group is left. Each test allows the
 * 15 s and 10 s more, for a machine four times slower. Servers on opsPort 170-179 and 191-193
 * (drafts.spec has 180-183); the fakes and PostgreSQL on free ports. Whatever a test starts is
 * ended after it, passed, failed or timed out.
 */
import { expect, test } from "@playwright/test";
import { type ChildProcess, execFileSync, spawn, type StdioOptions } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { owned, runEnv } from "../../scripts/test-run.mjs";
import { startFakeFormService } from "../support/fake-form-service";
import { startPostgres } from "../support/postgres";
import { accepts, dataDir, deliveredOnce, events, keyed, postContact, REPO, sleep } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";

/** The documented stop and the margin a slower machine gets. */
const PROMISE_MS = 15_000;
const MARGIN_MS = 10_000;

/** Undone after each test, last first: the processes it started, the fakes, the pipes. */
let teardown: (() => unknown)[] = [];
test.afterEach(async () => {
  for (const step of teardown.reverse()) await step();
  teardown = [];
});

interface Started {
  url: string;
  port: number;
  /** The process a supervisor would signal: npm's, or the server's own. */
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote so far, once `reading()`. */
  log(): string;
  /** The reader of its stdout and stderr goes away (the socket's or pipe's other end is closed). */
  readerGoes(): void;
  /** Whether any process of its group is left: npm, its shell, the server. */
  groupAlive(): boolean;
}

/**
 * Starts the built server, by `npm start` or `node build/server/index.js`, as the leader of a
 * process group of its own. Its stdout and stderr: a socket the test reads (or never reads, as
 * Node's child_process makes them), or a named pipe (mkfifo) the test holds open and never reads.
 */
async function start(n: number, { via, pipe = "socket", env = {} }: { via: "npm" | "node"; pipe?: "socket" | "fifo"; env?: Record<string, string> }) {
  const port = opsPort(n);
  let reader: number | undefined;
  let stdio: StdioOptions = ["ignore", "pipe", "pipe"];
  if (pipe === "fifo") {
    const fifo = join(mkdtempSync(join(dataDir(), "fifo-")), "output");
    execFileSync("mkfifo", [fifo]);
    // The read end first, without blocking; then the write end, which the server gets as 1 and 2.
    reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    stdio = ["ignore", writer, writer];
  }
  // Killed should this worker die first (scripts/test-run.mjs): npm's or the server's process; the
  // server under npm carries the run's id, so the run's end finds it.
  const child = spawn(...(via === "npm" ? owned("npm", ["start"]) : owned(process.execPath, ["build/server/index.js"])), {
    cwd: REPO,
    detached: true,
    stdio,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir(),
      ...runEnv(),
      ...env,
    },
  });
  if (typeof stdio[1] === "number") closeSync(stdio[1]);
  const closeReader = () => {
    if (reader !== undefined) closeSync(reader);
    reader = undefined;
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  teardown.push(() => {
    if (groupAlive()) process.kill(-child.pid!, "SIGKILL");
    closeReader();
  });
  let log = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const started: Started = { url: `http://127.0.0.1:${port}`, port, child, exited, log: () => log, readerGoes: closeReader, groupAlive };
  await expect
    .poll(
      () =>
        fetch(`${started.url}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      { timeout: 20_000, message: "listening" },
    )
    .toBe(200);
  expect(groupAlive(), "the server answering is this one").toBe(true);
  return {
    ...started,
    /** Reads its output from now on (a socket only). */
    reading() {
      child.stdout!.on("data", (chunk) => (log += chunk));
      child.stderr!.on("data", (chunk) => (log += chunk));
      return this;
    },
  };
}

/** `n` requests, ten at a time: each writes a log line, so an output nobody reads fills up. */
async function requests(url: string, n: number) {
  let next = 0;
  const one = async (): Promise<void> => {
    if (next++ >= n) return;
    const answer = await fetch(`${url}/healthz`);
    await answer.arrayBuffer();
    expect(answer.status).toBe(200);
    return one();
  };
  await Promise.all(Array.from({ length: 10 }, one));
}

/**
 * SIGTERM to `target` (a process, or a process group by its leader's negative id): the process
 * started exits within the promise and the margin, and no process of its group is left (a server
 * orphaned by npm's shell would be). Resolves with the exit.
 */
async function stopped(server: Started, target = server.child.pid!) {
  process.kill(target, "SIGTERM");
  const exit = await Promise.race([server.exited, sleep(PROMISE_MS + MARGIN_MS).then(() => null)]);
  expect(exit, `still running ${(PROMISE_MS + MARGIN_MS) / 1000} s after SIGTERM`).not.toBeNull();
  await expect.poll(() => server.groupAlive(), { timeout: 2_000, message: "no process of its group left" }).toBe(false);
  return exit!;
}

for (const { via, pipe, output, port } of [
  { via: "node", pipe: "fifo", output: "unread", port: 170 },
  { via: "npm", pipe: "socket", output: "unread", port: 171 },
  { via: "node", pipe: "socket", output: "reader gone", port: 172 },
  { via: "npm", pipe: "fifo", output: "reader gone", port: 173 },
] as const) {
  test(`${via === "npm" ? "npm start" : "the server"} with stdout and stderr on a ${pipe === "fifo" ? "pipe" : "socket"} ${output === "unread" ? "nobody reads" : "whose reader has gone"}: after 1,500 requests SIGTERM ends it within 15 s, exit 0`, async () => {
    test.setTimeout(60_000);
    const server = await start(port, { via, pipe });
    await requests(server.url, 1_500);
    if (output === "reader gone") server.readerGoes();
    expect(await stopped(server)).toEqual({ code: 0, signal: null });
    expect(await accepts(server.port)).toBe(false);
  });
}

for (const target of ["npm's process", "its whole process group"] as const) {
  test(`npm start, SIGTERM to ${target}: the server logs stopping and stopped, and npm exits 0 once the server has`, async () => {
    test.setTimeout(60_000);
    const server = (await start(target === "npm's process" ? 174 : 175, { via: "npm" })).reading();
    await requests(server.url, 10);
    const exit = await stopped(server, target === "npm's process" ? server.child.pid! : -server.child.pid!);
    expect(exit).toEqual({ code: 0, signal: null });
    const said = events(server.log().replace(/^(?!\{).*$/gm, "")).map((e) => e.event);
    // npm passes the group's signal on to the server, which got it too: one stop all the same.
    expect(said.slice(-2)).toEqual(["stopping", "stopped"]);
    expect(said).not.toContain("shutdown_error");
  });
}

/** A stand-in for a service that takes each request and never answers; `requests` counts them by path. */
async function hangingService(): Promise<{ url: string; requests: (path: string) => number }> {
  const seen: string[] = [];
  const server = createServer((req) => void seen.push(new URL(req.url ?? "/", "http://x").pathname));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: (path) => seen.filter((p) => p === path).length };
}

test("a delivery hanging (FORM_TIMEOUT_MS 30 s): SIGTERM cuts it short within 15 s, exit 0, and the lead goes out after the restart", async () => {
  test.setTimeout(90_000);
  const fake = await startFakeFormService();
  teardown.push(() => fake.close());
  fake.setMode("hang");
  const dir = dataDir();
  const env = keyed(fake, dir, { FORM_TIMEOUT_MS: "30000" });
  const server = (await start(176, { via: "node", env })).reading();
  expect((await postContact(server.url, "Sent while the service hangs (stop-hang).")).status).toBe(303);
  await expect.poll(() => fake.received("stop-hang").length).toBe(1);
  const exit = await stopped(server);
  expect(exit).toEqual({ code: 0, signal: null });
  const lines = events(server.log());
  expect(lines.find((e) => e.event === "lead_delivery_failed")).toMatchObject({ reason: "stopped" });
  expect(lines.at(-1)?.event).toBe("stopped");
  // Nothing lost: the next server on the folder sends it, due again 1-2 s after the stop. The wait
  // also holds a claim's lease (FORM_TIMEOUT_MS + 5 s) and a margin: what is asserted is the lead's
  // going out, not how soon.
  fake.setMode("ok");
  const next = await start(177, { via: "node", env });
  await expect.poll(() => fake.accepted("stop-hang").length, { timeout: 45_000 }).toBe(1);
  await stopped(next);
});

test("a Zoho token refresh hanging (FORM_TIMEOUT_MS 30 s): SIGTERM cuts it short within 15 s, exit 0", async () => {
  test.setTimeout(60_000);
  const accounts = await hangingService();
  const env = {
    FORM_PROVIDER: "zoho-crm",
    ZOHO_CLIENT_ID: "1000.FAKECLIENTID",
    ZOHO_CLIENT_SECRET: "secret-of-the-test",
    ZOHO_REFRESH_TOKEN: "1000.refresh-token-of-the-test",
    ZOHO_ACCOUNTS_URL: accounts.url,
    ZOHO_REFERENCE_FIELD: "Website_Reference",
    FORM_TIMEOUT_MS: "30000",
  };
  const server = (await start(178, { via: "node", env })).reading();
  expect((await postContact(server.url, "Sent while Zoho's token hangs (stop-zoho).")).status).toBe(303);
  await expect.poll(() => accounts.requests("/oauth/v2/token")).toBe(1);
  const exit = await stopped(server);
  expect(exit).toEqual({ code: 0, signal: null });
  const lines = events(server.log());
  expect(lines.find((e) => e.event === "lead_delivery_failed")).toMatchObject({ reason: "stopped", provider: "zoho-crm" });
  expect(lines.at(-1)?.event).toBe("stopped");
});

for (const fault of ["killed", "paused"] as const) {
  test(`PostgreSQL ${fault} (DATABASE_URL): SIGTERM ends the server within 15 s, exit 0, no shutdown_error`, async () => {
    test.setTimeout(90_000);
    const postgres = await startPostgres({ parent: e2eDir });
    teardown.push(() => postgres.stop());
    const server = (await start(fault === "killed" ? 179 : 191, { via: "node", env: { DATABASE_URL: await postgres.database("site") } })).reading();
    // The pool's connections open and used: the lead stored, the post counted against its client's limit.
    expect((await postContact(server.url, `Sent with PostgreSQL up (stop-postgres-${fault}).`)).status).toBe(303);
    if (fault === "killed")
      await postgres.kill(); // kill -9 of the cluster: connections cut, new ones refused
    else {
      postgres.pause(); // SIGSTOP: connections accepted, nothing answered; postgres.stop() wakes it to end it
      // Past the queue's next look (every 2 s): calls now wait on PostgreSQL, as they do in service.
      await sleep(3_000);
    }
    const exit = await stopped(server);
    expect(exit).toEqual({ code: 0, signal: null });
    const said = events(server.log()).map((e) => e.event);
    expect(said).not.toContain("shutdown_error");
    expect(said.at(-1)).toBe("stopped");
  });
}

/**
 * A contact post whose body arrives in two parts: the server reads its headers now and handles it
 * once `finish()` sends the rest, so it is a visitor's request still in flight during a stop.
 */
function postInTwoParts(url: string, localAddress: string, message: string) {
  const body = new URLSearchParams({ formName: "contact", name: "Ada Lovelace", email: "ada@example.com", service: "seo", message }).toString();
  const headers = { Origin: url, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) };
  const req = request(`${url}/?index`, { method: "POST", localAddress, headers });
  const status = new Promise<number>((resolve, reject) => {
    req.on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0)));
    req.on("error", reject);
  });
  req.write(body.slice(0, 20));
  teardown.push(() => req.destroy());
  const connected = new Promise((resolve) => req.once("socket", (socket) => socket.once("connect", resolve)));
  return { connected, finish: () => req.end(body.slice(20)), status };
}

/**
 * The stop's worst case on PostgreSQL: a delivery cut at the drain's end whose outcome's write
 * waits out PostgreSQL's 3 s, while the pool still holds connections (visitors' posts during the
 * drain) that calls the stop gives up on take and keep for their own 3 s (db.ts's close).
 */
test("PostgreSQL paused late in the stop, a delivery hanging and visitors' posts arriving during the drain: SIGTERM ends the server within 15 s, exit 0, and every lead goes out after the restart", async () => {
  test.setTimeout(120_000);
  const postgres = await startPostgres({ parent: e2eDir });
  teardown.push(() => postgres.stop());
  const fake = await startFakeFormService();
  teardown.push(() => fake.close());
  fake.setMode("hang");
  const env = keyed(fake, dataDir(), { FORM_TIMEOUT_MS: "30000", DATABASE_URL: await postgres.database("site") });
  const server = (await start(192, { via: "node", env })).reading();
  expect((await postContact(server.url, "Sent while the service hangs (stop-pg-hang).")).status).toBe(303);
  await expect.poll(() => fake.received("stop-pg-hang").length).toBe(1);
  const late = ["stop-pg-late-1", "stop-pg-late-2", "stop-pg-late-3"].map((token, i) =>
    postInTwoParts(server.url, `127.0.0.${61 + i}`, `In flight at the stop (${token}).`),
  );
  await Promise.all(late.map((post) => post.connected));
  await sleep(500); // for the server to read their headers: a request begun is one the stop waits for
  const exit = stopped(server);
  exit.catch(() => undefined); // awaited below; meanwhile a failure is not an unhandled rejection
  // Well within the drain (8 s): the visitors' posts are stored, with connections the server's
  // pool keeps; then PostgreSQL stops answering before the hanging delivery is cut.
  await sleep(4_000);
  for (const post of late) post.finish();
  expect(await Promise.all(late.map((post) => post.status)), "thanked: stored before the pause").toEqual([303, 303, 303]);
  postgres.pause();
  expect(await exit).toEqual({ code: 0, signal: null });
  const said = events(server.log()).map((e) => e.event);
  expect(said).not.toContain("shutdown_error");
  expect(said.at(-1)).toBe("stopped");
  // Nothing lost: PostgreSQL back, the next server sends each lead once (the hanging one after its claim's lease).
  postgres.resume();
  fake.setMode("ok");
  const next = await start(193, { via: "node", env });
  await deliveredOnce(fake, ["stop-pg-hang", ...late.map((_, i) => `stop-pg-late-${i + 1}`)], { within: 60_000 });
  await stopped(next);
});

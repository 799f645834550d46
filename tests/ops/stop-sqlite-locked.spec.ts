/**
 * Another process holding a SQLite file's write lock (a second server on the folder, one paused
 * mid-write, the operator's command) is waited for without stalling the server, and does not keep
 * it from stopping in time (docs/operations.md, "How leads flow" and "Stopping"; decision 0039).
 * The lock is held by a process of its own, so it goes only when that process goes, whatever the
 * server does. A server from build/ on opsPort 160, its metrics on 163.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, test } from "@playwright/test";
import { owned } from "../../scripts/test-run.mjs";
import { beacon, dataDir, keyed, postContact, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { said, startedByEachTest } from "../support/started";

const { fakeService, site, undo } = startedByEachTest();

/** Takes the write lock on each database named (BEGIN IMMEDIATE), says so, and holds them until killed. */
const HOLD_LOCKS = `
const { DatabaseSync } = require("node:sqlite");
for (const file of process.argv.slice(1)) new DatabaseSync(file, { timeout: 10000 }).exec("BEGIN IMMEDIATE");
process.stdout.write("locked\\n");
setInterval(() => undefined, 60000);
`;

/** Another process holds the files' write locks from when this resolves until it is killed. */
async function holdWriteLocks(...files: string[]) {
  const holder = spawn(...owned(process.execPath, ["-e", HOLD_LOCKS, ...files]), { stdio: ["ignore", "pipe", "inherit"] });
  undo(() => holder.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    holder.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before it held the locks`)));
  });
  return holder;
}

/**
 * The server's own measure of its event loop (prom-client's, from monitorEventLoopDelay, a turn
 * every 10 ms when idle) since the last scrape, which starts the next window: how long its turns
 * took, in ms, at the 99th percentile and the longest.
 */
async function turns(metricsPort: number) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const ms = (name: string) => Number(new RegExp(`^nodejs_eventloop_lag_${name}_seconds\\{[^}]*\\} (\\S+)$`, "m").exec(text)?.[1]) * 1000;
  return { p99: ms("p99"), longest: ms("max") };
}

/**
 * The bound on the 99th percentile of those turns while requests wait for the lock: waiting holds
 * the event loop only for a try's statements (microseconds). Before, SQLite's own busy wait slept
 * on it 250 ms a try (the funnel's, 1 s): one turn in 26 at least (a try, then 250 ms of 10 ms
 * turns), so the 99th percentile was 250 ms or more. Not the longest turn: on this machine, its two
 * cores shared with other work at loads of 10-25, the scheduler alone has held an idle server
 * ~500 ms now and then; 99 turns in 100 stay far under 250 ms there, as on one four times slower.
 */
const TURN_MS = 250;

/** SIGTERM, then the exit: within the documented 15 s, with a slow machine's margin. */
async function stopped(server: Served) {
  const signalled = Date.now();
  server.child.kill("SIGTERM");
  const exit = await Promise.race([server.exited, sleep(25_000).then(() => null)]);
  expect(exit, "still running 25 s after SIGTERM (15 s documented, and a slow machine's margin)").not.toBeNull();
  return { ...exit!, afterMs: exit!.at - signalled };
}

test("another process holds the write locks of leads.db and funnel.db for good: posts and beacons wait without stalling the server, posts then get the failure text, beacons are answered and their counts dropped; SIGTERM while more of both wait stops it in time, exit 0, the lead stored before still there", async () => {
  const dir = dataDir();
  const fake = await fakeService();
  // Refused for now, so it is still to deliver when the lock is taken.
  fake.setMode("fail500", undefined, "locked-stored");
  const server = site(opsPort(160), keyed(fake, dir, { METRICS_PORT: String(opsPort(163)) }));
  await server.listening;
  /** Five beacons at once, each answered with its status or its error. */
  const fiveBeacons = () => Promise.allSettled(Array.from({ length: 5 }, () => beacon(server.url, "2")));
  expect(await beacon(server.url, "2"), "the first count opens funnel.db").toBe(204);
  expect((await postContact(server.url, "Stored before the lock (locked-stored).")).status).toBe(303);
  await expect.poll(() => fake.received("locked-stored").length, { message: "its first attempt" }).toBeGreaterThan(0);
  const holder = await holdWriteLocks(join(dir, "leads.db"), join(dir, "funnel.db"));

  // Two visitors post and five beacons come while the locks are held: each waits (watched from when
  // all are in the server's hands, for most of the wait); the posts then get the failure text.
  const waiting = Promise.all(
    ["a", "b"].map((x, i) => postContact(server.url, `Posted while locked (locked-waiting-${x}).`, { localAddress: `127.0.5.${i + 1}` })),
  );
  waiting.catch(() => undefined); // awaited below, unless the test has failed first
  const beacons = fiveBeacons();
  await sleep(500);
  await turns(opsPort(163));
  await sleep(1_500);
  const waited = await turns(opsPort(163));
  expect(waited.p99, `the server's turns while they waited, 99th percentile (ms; the longest ${waited.longest})`).toBeLessThan(TURN_MS);
  expect(
    (await waiting).map((a) => a.status),
    "the failure text, with what was typed",
  ).toEqual([503, 503]);
  const statuses = async (answers: Promise<PromiseSettledResult<number>[]>) =>
    (await answers).map((a) => (a.status === "fulfilled" ? a.value : String(a.reason)));
  expect(await statuses(beacons)).toEqual([204, 204, 204, 204, 204]);

  // Six more post and five more beacons come, and the server is stopped while they wait: they are answered, and it exits in time.
  const posts = Array.from({ length: 6 }, (_, i) =>
    postContact(server.url, `Posted as it stops (locked-waiting-${i}).`, { localAddress: `127.0.5.${i + 10}` }),
  );
  const [answers, stopBeacons] = [Promise.allSettled(posts.map(async (post) => (await post).status)), fiveBeacons()];
  await sleep(1_000); // each in the server's hands, with 2 s of its wait left
  const exit = await stopped(server);
  expect(exit.code, `exit code, ${exit.afterMs} ms after SIGTERM`).toBe(0);
  expect(said(server)).toContain("stopped");
  expect(await statuses(answers), "the failure text, with what was typed").toEqual([503, 503, 503, 503, 503, 503]);
  expect(await statuses(stopBeacons)).toEqual([204, 204, 204, 204, 204]);
  // A count is worth less than a step: one the lock kept out is dropped, and said so.
  expect(said(server).filter((e) => e === "funnel_not_counted")).toHaveLength(10);

  // The locks gone: the lead stored before is still there, to deliver at the next start.
  holder.kill("SIGKILL");
  await new Promise((resolve) => holder.once("exit", resolve));
  const db = new DatabaseSync(join(dir, "leads.db"), { timeout: 5_000 });
  const rows = db.prepare("SELECT status, payload FROM leads").all();
  db.close();
  expect(rows.filter((r) => String(r.payload).includes("locked-stored")).map((r) => r.status)).toEqual(["pending"]);
  expect(
    rows.filter((r) => String(r.payload).includes("locked-waiting")),
    "the posts that waited were not stored",
  ).toEqual([]);
});

/**
 * Upgrading loses nothing (issue 40, decision 0046): data folders written by the release before
 * (tests/fixtures/data-5d43025, its README lists each lead) started by this version. SQLite alone:
 * pending leads delivered once, held ones at the ceiling's pace or on `release`, the parked one
 * listed with the service's status and delivered once after `retry`, the delivered one never sent.
 * With DATABASE_URL, the same folder (one container becoming several) and one of the Redis days:
 * its leads move into PostgreSQL once and the file is renamed; a handed lead is sent again, once.
 * A rollback: the file keeps the schema the release before opens, and that release (its build, at
 * PREVIOUS_RELEASE_DIR, /work/wt-oldmain by default; skipped without it) delivers a lead this one
 * left pending. Servers from build/ on opsPort 142-146; fake form services on free ports.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { expect, test } from "@playwright/test";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { freePort } from "../support/ports";
import { startPostgres } from "../support/postgres";
import { dataDir, deliveredOnce, events, keyed, leadsCommand, postContact, REPO, type Served, serve, sleep } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";

const FIXTURES = join(REPO, "tests/fixtures/data-5d43025");
const MANIFEST = JSON.parse(readFileSync(join(FIXTURES, "manifest.json"), "utf8")) as {
  made: string;
  sqlite: { leads: { marker: string; id: string }[] };
  redis: { leads: { marker: string; id: string }[] };
};
const idOf = (shape: "sqlite" | "redis", marker: string) => MANIFEST[shape].leads.find((lead) => lead.marker === marker)!.id;
const PREVIOUS_RELEASE = process.env.PREVIOUS_RELEASE_DIR ?? "/work/wt-oldmain";

/** What the running test started, undone after it however it ends: servers, then fakes, then PostgreSQL. */
const started: (() => unknown)[] = [];
test.afterEach(async () => {
  for (const undo of started.splice(0).reverse()) await undo();
});
async function fakeService() {
  const fake = await startFakeFormService({ port: await freePort() });
  started.push(() => fake.close());
  return fake;
}
function site(port: number, env: Record<string, string>, start: typeof serve = serve) {
  const served = start(port, env);
  // Its log, kept beside the test's other output, for a failure's reader.
  const info = test.info();
  started.push(() => {
    served.kill();
    writeFileSync(info.outputPath(`site-${port}-${served.child.pid}.log`), served.stdout() + served.stderr());
  });
  return served;
}
async function postgresDatabase() {
  const server = await startPostgres({ parent: e2eDir });
  started.push(() => server.stop());
  return server.database("sites");
}

/** SIGTERM, and the clean stop's exit code 0 (a stop ends within 15 s: docs/operations.md, "Stopping"). */
async function stop(server: Served) {
  server.child.kill("SIGTERM");
  expect((await server.exited).code, "the exit code of a clean stop").toBe(0);
}

const TIMES = ["first_accepted_at", "next_attempt_at", "admitted_at", "delivered_at", "parked_at"];
/**
 * A copy of a shape's folder in a fresh data folder (`into`, else a new one), its times moved as if
 * the old server had stopped five minutes ago (the fixture's README, "Using them"): every hourly
 * ceiling and address window is then as the old site left it, whatever day the test runs.
 */
function copyOf(shape: "sqlite" | "redis", into = dataDir()) {
  const file = join(into, "leads.db");
  copyFileSync(join(FIXTURES, shape, "leads.db"), file);
  const shift = Date.now() - 5 * 60_000 - Date.parse(MANIFEST.made);
  const db = new DatabaseSync(file);
  db.prepare(`UPDATE leads SET ${TIMES.map((column) => `${column} = ${column} + ?`).join(", ")}`).run(...TIMES.map(() => shift));
  db.close();
  return into;
}

/** `npm run leads -- status`, parsed. */
const statusOf = async (leads: ReturnType<typeof leadsCommand>) =>
  JSON.parse((await leads("status")).stdout) as { store: string; pending: number; held: number; parked: number };
/** `npm run leads -- list`'s line for a lead, its columns (id, kind, status, age, reason). */
const listed = async (leads: ReturnType<typeof leadsCommand>, id: string) =>
  (await leads("list")).stdout
    .split("\n")
    .find((line) => line.startsWith(`${id}\t`))
    ?.split("\t");

/** Each lead reached the service once, and every send of it carried its own reference. */
async function sentOnce(fake: FakeFormService, shape: "sqlite" | "redis", markers: string[], options: { within?: number; settle?: number } = {}) {
  await deliveredOnce(fake, markers, options);
  for (const marker of markers)
    expect(
      fake.received(marker).map((body) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1]),
      `the reference ${marker}'s sends carried`,
    ).toEqual(fake.received(marker).map(() => idOf(shape, marker)));
}

/**
 * What the release before does with the file when it starts (server/leads/database.ts at 5d43025):
 * quick_check and the schema version (4 at most) read-only, then opened for writing, WAL, and its
 * table of other containers' deliveries made if missing, in one write transaction.
 */
function openedByTheReleaseBefore(file: string) {
  const check = new DatabaseSync(file, { readOnly: true });
  expect(
    check
      .prepare("PRAGMA quick_check")
      .all()
      .map((row) => Object.values(row)[0]),
  ).toEqual(["ok"]);
  expect(Number(check.prepare("PRAGMA user_version").get()?.user_version), "the schema version").toBe(4);
  check.close();
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;");
  db.exec("BEGIN IMMEDIATE");
  db.exec("CREATE TABLE IF NOT EXISTS delivered_for_others (id TEXT PRIMARY KEY, delivered_at INTEGER NOT NULL) STRICT");
  db.exec("COMMIT");
  // The columns it reads and writes are all there.
  db.prepare(
    "SELECT id, kind, payload, dedupe_key, status, attempts, next_attempt_at, first_accepted_at, retry_ms, delivered_at, parked_at, parked_reason, parked_status, claimed_by, claimed_until, admitted_at, crm_record, client_group FROM leads",
  ).all();
  db.close();
}

test("SQLite alone, a folder of the release before: pending leads delivered once, held ones on release, the parked one listed (http 401) and delivered once after retry, the delivered one never sent; the file keeps schema 4 for a rollback", async () => {
  test.setTimeout(90_000);
  const dir = copyOf("sqlite");
  const fake = await fakeService();
  // The old site's ceiling: its hour is full (four let through five minutes ago), so held ones stay held.
  const server = site(opsPort(142), keyed(fake, dir, { LEADS_PER_HOUR: "4" }));
  await server.listening;
  await sentOnce(fake, "sqlite", ["Upgrade Pending 1", "Upgrade Pending 2"]);

  const leads = leadsCommand(dir);
  expect(await statusOf(leads)).toMatchObject({ store: "sqlite", pending: 0, held: 2, parked: 1 });
  expect(await listed(leads, idOf("sqlite", "Upgrade Parked 1"))).toEqual([
    idOf("sqlite", "Upgrade Parked 1"),
    "contact",
    "parked",
    expect.any(String),
    "http 401",
  ]);
  expect(fake.received("Upgrade Held"), "held leads, the hour full").toEqual([]);
  expect(fake.received("Upgrade Parked 1"), "the parked lead, before a retry").toEqual([]);

  expect((await leads("release")).stdout).toContain("released 2 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Held 1", "Upgrade Held 2"]);
  expect((await leads("retry")).stdout).toContain("re-queued 1 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Parked 1"]);
  expect(await statusOf(leads)).toMatchObject({ pending: 0, held: 0, parked: 0 });
  expect(fake.received("Upgrade Delivered 1"), "the lead delivered before the upgrade").toEqual([]);

  await stop(server);
  openedByTheReleaseBefore(join(dir, "leads.db"));
});

test("SQLite alone, held leads of the release before go out on their own once the last hour has room, no faster than the ceiling's pace", async () => {
  test.setTimeout(60_000);
  const dir = copyOf("sqlite");
  const fake = await fakeService();
  // 1,200 an hour: room in the hour, and one lead let through every 3 s at most.
  const server = site(opsPort(143), keyed(fake, dir, { LEADS_PER_HOUR: "1200" }));
  await server.listening;
  await sentOnce(fake, "sqlite", ["Upgrade Pending 1", "Upgrade Pending 2", "Upgrade Held 1", "Upgrade Held 2"]);
  expect(events(server.stdout()).filter((e) => e.event === "lead_released")).toHaveLength(2);
  await stop(server);
  const db = new DatabaseSync(join(dir, "leads.db"), { readOnly: true });
  const admitted = ["Upgrade Held 1", "Upgrade Held 2"].map((marker) =>
    Number(db.prepare("SELECT admitted_at AS at FROM leads WHERE id = ?").get(idOf("sqlite", marker))?.at),
  );
  db.close();
  expect(Math.abs(admitted[1]! - admitted[0]!), "ms between the two held leads' release").toBeGreaterThanOrEqual(3_000);
  expect(fake.received("Upgrade Delivered 1")).toEqual([]);
  expect(fake.received("Upgrade Parked 1")).toEqual([]);
});

test("the SQLite folder started with DATABASE_URL (one container becoming several): its leads move into PostgreSQL once and the file is renamed; the same deliveries; a second start, and the same file met again, move nothing and send nothing twice", async () => {
  test.setTimeout(120_000);
  const db = await postgresDatabase();
  const dir = copyOf("sqlite");
  const fake = await fakeService();
  const env = keyed(fake, dir, { DATABASE_URL: db, LEADS_PER_HOUR: "4" });
  const first = site(opsPort(144), env);
  await first.listening;
  expect(events(first.stdout()).filter((e) => e.event === "leads_moved_into_postgresql")).toEqual([expect.objectContaining({ leads: 6 })]);
  expect([existsSync(join(dir, "leads.db")), existsSync(join(dir, "leads.db.moved-to-postgresql"))], "leads.db, and it renamed").toEqual([false, true]);
  await sentOnce(fake, "sqlite", ["Upgrade Pending 1", "Upgrade Pending 2"]);

  const leads = leadsCommand(dir, { DATABASE_URL: db });
  expect(await statusOf(leads)).toMatchObject({ store: "postgres", pending: 0, held: 2, parked: 1 });
  expect(await listed(leads, idOf("sqlite", "Upgrade Parked 1"))).toEqual([
    idOf("sqlite", "Upgrade Parked 1"),
    "contact",
    "parked",
    expect.any(String),
    "http 401",
  ]);
  expect(fake.received("Upgrade Held"), "held leads, the hour full").toEqual([]);
  expect((await leads("release")).stdout).toContain("released 2 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Held 1", "Upgrade Held 2"]);
  expect((await leads("retry")).stdout).toContain("re-queued 1 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Parked 1"]);
  await stop(first);

  const every = ["Upgrade Pending 1", "Upgrade Pending 2", "Upgrade Held 1", "Upgrade Held 2", "Upgrade Parked 1"];
  // Started again: nothing to move. Then a copy of the same file met again (another container's
  // volume restored from the same backup): each lead is in PostgreSQL already, left as it is.
  for (const [again, moved] of [
    [false, []],
    [true, [expect.objectContaining({ leads: 0 })]],
  ] as const) {
    if (again) copyOf("sqlite", dir);
    const next = site(opsPort(144), env);
    await next.listening;
    expect(events(next.stdout()).filter((e) => e.event === "leads_moved_into_postgresql")).toEqual(moved);
    expect(existsSync(join(dir, "leads.db")), "leads.db").toBe(false);
    await sleep(5_000); // two of its looks at the store, and a due lead's send
    expect(
      every.map((marker) => fake.accepted(marker).length),
      "each lead's deliveries",
    ).toEqual(every.map(() => 1));
    expect(await statusOf(leads)).toMatchObject({ pending: 0, held: 0, parked: 0 });
    await stop(next);
  }
  expect(fake.received("Upgrade Delivered 1"), "the lead delivered before the upgrade").toEqual([]);
});

test("a container of the Redis days started with DATABASE_URL: the leads it had handed to Redis and the one pending are delivered once each, the one Redis had parked is tried again and parks again while refused, then delivered once after retry; held ones stay held; the delivered one is never sent", async () => {
  test.setTimeout(120_000);
  const db = await postgresDatabase();
  const dir = copyOf("redis");
  const fake = await fakeService();
  fake.setMode("unauthorized", undefined, "Upgrade Redis Parked 1");
  const server = site(opsPort(145), keyed(fake, dir, { DATABASE_URL: db }));
  await server.listening;
  expect(events(server.stdout()).filter((e) => e.event === "leads_moved_into_postgresql")).toEqual([expect.objectContaining({ leads: 8 })]);
  expect(existsSync(join(dir, "leads.db.moved-to-postgresql"))).toBe(true);
  await sentOnce(fake, "redis", ["Upgrade Redis Handed 1", "Upgrade Redis Handed 2", "Upgrade Redis Handed 3", "Upgrade Redis Pending 1"]);

  const leads = leadsCommand(dir, { DATABASE_URL: db });
  const parked = idOf("redis", "Upgrade Redis Parked 1");
  await expect.poll(async () => (await listed(leads, parked))?.slice(2)).toEqual(["parked", expect.any(String), "http 401"]);
  expect(fake.received("Upgrade Redis Parked 1"), "the lead Redis had parked, tried once more").toHaveLength(1);
  // Over the address's share still (five let through from it in the last ten minutes).
  expect(await statusOf(leads)).toMatchObject({ pending: 0, held: 2, parked: 1 });

  fake.setMode("ok", undefined, "Upgrade Redis Parked 1");
  expect((await leads("retry")).stdout).toContain("re-queued 1 lead(s)");
  await sentOnce(fake, "redis", ["Upgrade Redis Parked 1"]);
  expect(await statusOf(leads)).toMatchObject({ pending: 0, held: 2, parked: 0 });
  expect(fake.received("Upgrade Redis Held"), "held leads").toEqual([]);
  expect(fake.received("Upgrade Redis Delivered 1"), "the lead delivered before the upgrade").toEqual([]);
});

test("rolled back: the release before, started on a SQLite folder this one used, delivers the lead this one left pending", async () => {
  test.setTimeout(90_000);
  test.skip(!existsSync(join(PREVIOUS_RELEASE, "build/server/index.js")), `no build of the release before at ${PREVIOUS_RELEASE} (PREVIOUS_RELEASE_DIR)`);
  const dir = copyOf("sqlite");
  const fake = await fakeService();
  fake.setMode("fail500", undefined, "rolled-back-");
  const server = site(opsPort(146), keyed(fake, dir));
  await server.listening;
  expect((await postContact(server.url, "Left pending (rolled-back-1).")).status).toBe(303);
  await expect.poll(() => fake.received("rolled-back-1").length, { message: "its first attempt" }).toBeGreaterThan(0);
  await stop(server);

  fake.setMode("ok", undefined, "rolled-back-");
  // The release before's own way to start its build (its scripts/serve.mjs, its checkout's folder).
  const previous = (await import(pathToFileURL(join(PREVIOUS_RELEASE, "scripts/serve.mjs")).href)) as { serve: typeof serve };
  const old = site(opsPort(146), keyed(fake, dir), previous.serve);
  await old.listening;
  await deliveredOnce(fake, ["rolled-back-1"]);
  expect(
    events(old.stdout())
      .filter((e) => e.event === "lead_delivered")
      .map((e) => e.id),
  ).toContain(/Reference: ([\w-]+)/.exec(JSON.stringify(fake.accepted("rolled-back-1")[0]))?.[1]);
  expect(fake.received("Upgrade Delivered 1")).toEqual([]);
});

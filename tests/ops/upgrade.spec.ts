/**
 * Upgrading loses nothing (issues 40 and 41, decision 0046): data folders written by an older
 * release (tests/fixtures/data-5d43025, its README lists each lead) started by this version. SQLite alone:
 * pending leads delivered once, held ones at the ceiling's pace or on `release`, the parked one
 * listed with the service's status and delivered once after `retry`, the delivered one never sent.
 * With DATABASE_URL, the same folder (one container becoming several) and one of the Redis days:
 * its leads move into PostgreSQL once and the file is renamed; a handed lead is sent again, once.
 * Upgrade, rollback, upgrade again (issue 41), on SQLite and on PostgreSQL: the release before
 * (tests/support/previous-release.ts, built from this repository's history) writes the store,
 * this one takes it over, the release before runs on it again, then this one: every lead, in
 * every state at each step, reaches a service that keeps every copy exactly once. Servers from
 * build/ on opsPort 142-145 and 67-68; fake form services on free ports.
 */
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, test } from "@playwright/test";
import { type FakeFormService } from "../support/fake-form-service";
import { previousRelease } from "../support/previous-release";
import { dataDir, deliveredOnce, events, keyed, leadsCommand, postContact, REPO, type Served, serve, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const FIXTURES = join(REPO, "tests/fixtures/data-5d43025");
const MANIFEST = JSON.parse(readFileSync(join(FIXTURES, "manifest.json"), "utf8")) as {
  made: string;
  sqlite: { leads: { marker: string; id: string }[] };
  redis: { leads: { marker: string; id: string }[] };
};
const idOf = (shape: "sqlite" | "redis", marker: string) => MANIFEST[shape].leads.find((lead) => lead.marker === marker)!.id;

const { fakeService, postgres, site, stop } = startedByEachTest();
const postgresDatabase = async () => (await postgres()).database("sites");

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

/** `npm run -s leads -- status`, parsed. */
const statusOf = async (leads: ReturnType<typeof leadsCommand>) =>
  JSON.parse((await leads("status")).stdout) as { store: string; pending: number; held: number; parked: number };
/** `npm run -s leads -- list`'s line for a lead, its columns (id, kind, status, age, arrived, reason, address). */
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
 * The SQLite folder's held and parked leads, taken over with the hour full: listed as they were
 * (the parked one with its 401), none sent by itself, each sent once on `release` and `retry`.
 */
async function heldAndParkedGoOnRequest(fake: FakeFormService, leads: ReturnType<typeof leadsCommand>, store: "sqlite" | "postgres") {
  expect(await statusOf(leads)).toMatchObject({ store, pending: 0, held: 2, parked: 1 });
  const parked = idOf("sqlite", "Upgrade Parked 1");
  expect(await listed(leads, parked)).toEqual([parked, "contact", "parked", expect.any(String), expect.any(String), "http 401", expect.any(String)]);
  expect(fake.received("Upgrade Held"), "held leads, the hour full").toEqual([]);
  expect(fake.received("Upgrade Parked 1"), "the parked lead, before a retry").toEqual([]);
  expect((await leads("release")).stdout).toContain("released 2 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Held 1", "Upgrade Held 2"]);
  expect((await leads("retry")).stdout).toContain("re-queued 1 lead(s)");
  await sentOnce(fake, "sqlite", ["Upgrade Parked 1"]);
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
  await heldAndParkedGoOnRequest(fake, leads, "sqlite");
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
  await heldAndParkedGoOnRequest(fake, leads, "postgres");
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
  // Said as it happens: the four it had handed to Redis (one of them parked there) are pending again.
  expect(events(server.stdout()).filter((e) => e.event === "handed_leads_pending")).toEqual([
    expect.objectContaining({ from: "handed", to: "pending", leads: 4 }),
  ]);
  expect(existsSync(join(dir, "leads.db.moved-to-postgresql"))).toBe(true);
  await sentOnce(fake, "redis", ["Upgrade Redis Handed 1", "Upgrade Redis Handed 2", "Upgrade Redis Handed 3", "Upgrade Redis Pending 1"]);

  const leads = leadsCommand(dir, { DATABASE_URL: db });
  const parked = idOf("redis", "Upgrade Redis Parked 1");
  await expect.poll(async () => (await listed(leads, parked))?.slice(2, 6)).toEqual(["parked", expect.any(String), expect.any(String), "http 401"]);
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

/** The reference a send carried (the message's last line). */
const referenceOf = (body: unknown) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1];

for (const engine of ["sqlite", "postgres"] as const)
  test(`${engine}: upgraded from a store the release before wrote, rolled back to it, upgraded again; leads pending, held and parked at each step, and new ones at each: each delivered once, none lost`, async () => {
    test.setTimeout(240_000);
    const previous = await previousRelease();
    const dir = dataDir();
    const fake = await fakeService();
    const env = keyed(fake, dir, engine === "postgres" ? { DATABASE_URL: await postgresDatabase() } : {});
    const port = opsPort(engine === "sqlite" ? 67 : 68);
    const ours = leadsCommand(dir, env);
    const marker = (name: string) => `rollback-${engine}-${name}-`;
    const thanked: string[] = [];
    let client = 60;
    /** A contact message from a client address of its own (unless `from`), thanked. */
    async function post(server: Served, name: string, from = `127.0.0.${client++}`) {
      expect((await postContact(server.url, `A lead across releases (${marker(name)}).`, { localAddress: from })).status, name).toBe(303);
      thanked.push(name);
    }
    /** `name` left pending (its first attempt refused with a 500) and `parked` parked (401), by `server`. */
    async function leaveBehind(server: Served, pending: string, parked: string) {
      fake.setMode("fail500", undefined, marker(pending));
      fake.setMode("unauthorized", undefined, marker(parked));
      await post(server, pending);
      await post(server, parked);
      await expect.poll(() => [pending, parked].map((name) => fake.received(marker(name)).length > 0)).toEqual([true, true]);
    }
    const deliveredNow = (...names: string[]) => {
      for (const name of names) fake.setMode("ok", undefined, marker(name));
      return deliveredOnce(fake, names.map(marker), { within: 30_000, settle: 0 });
    };
    const start = async (serveWith: typeof serve) => {
      const server = site(port, env, serveWith);
      await server.listening;
      return server;
    };

    // Today's main writes the store: five leads delivered and a sixth held by its address's share
    // (five let through in ten minutes: it stays held for the test's length), one pending, one parked.
    const written = await start(previous.serve);
    for (const n of ["a", "b", "c", "d", "e"]) await post(written, `delivered0${n}`, "127.0.0.50");
    await post(written, "held0", "127.0.0.50");
    await deliveredOnce(
      fake,
      ["a", "b", "c", "d", "e"].map((n) => marker(`delivered0${n}`)),
      { settle: 0 },
    );
    await leaveBehind(written, "pending0", "parked0");
    await stop(written);

    // Upgraded: the pending lead goes once; a new one; another left pending and another parked.
    const upgraded = await start(serve);
    // Schema 4 kept: nothing to migrate, and so nothing the release before could not read.
    expect(events(upgraded.stdout()).filter((e) => /migrated|moved|handed/.test(String(e.event)))).toEqual([]);
    await deliveredNow("pending0");
    await post(upgraded, "new1");
    await deliveredOnce(fake, [marker("new1")], { settle: 0 });
    await leaveBehind(upgraded, "pending1", "parked1");
    expect(await statusOf(ours)).toMatchObject({ pending: 1, held: 1, parked: 2 });
    await stop(upgraded);

    // Rolled back: the release before delivers what this one left pending, and its own `retry`
    // the leads both parked; then the same again for the next step.
    const rolledBack = await start(previous.serve);
    await deliveredNow("pending1");
    fake.setMode("ok", undefined, marker("parked0"));
    fake.setMode("ok", undefined, marker("parked1"));
    expect(previous.leads(["retry"], env)).toContain("re-queued 2 lead(s)");
    await deliveredOnce(fake, [marker("parked0"), marker("parked1")], { settle: 0 });
    await post(rolledBack, "new2");
    await deliveredOnce(fake, [marker("new2")], { settle: 0 });
    await leaveBehind(rolledBack, "pending2", "parked2");
    await stop(rolledBack);

    // Upgraded again: what the release before left, the lead held since the start, and a new one.
    const again = await start(serve);
    fake.setMode("ok", undefined, marker("parked2"));
    await deliveredNow("pending2");
    expect((await ours("retry")).stdout).toContain("re-queued 1 lead(s)");
    expect((await ours("release")).stdout).toContain("released 1 lead(s)");
    await post(again, "new3");
    await deliveredOnce(fake, [marker("parked2"), marker("held0"), marker("new3")], { settle: 0 });
    await sleep(3_000); // a look or two more at the store: nothing goes twice
    expect(await statusOf(ours)).toMatchObject({ pending: 0, held: 0, parked: 0 });
    await stop(again);

    // Each thanked lead reached the service once, under a reference of its own, and nothing else did.
    const references = fake.accepted(`rollback-${engine}-`).map(referenceOf);
    expect(new Set(references).size, "distinct references delivered").toBe(references.length);
    expect(
      thanked.map((name) => fake.accepted(marker(name)).length),
      "each lead's deliveries",
    ).toEqual(thanked.map(() => 1));
    expect(references).toHaveLength(thanked.length);
  });

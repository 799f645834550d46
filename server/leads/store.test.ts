/**
 * The lead store on SQLite and a real PostgreSQL: each rule on both, as the same SQL must behave alike (decision 0046).
 * SQLite's own failures run on SQLite (a full disk: tests/ops/lead-store.spec.ts); a move into PostgreSQL on both.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { ENGINES, leadDatabases, type Place } from "../../tests/support/engines";
import { causeOf, openDb, StoreUnusable, type Db } from "../db";
import { DEDUPE_WINDOW_MS, MAX_DELAY_MS } from "./schedule";
import { copyLeads, leadStore, moveIntoPostgres, prepareStore, type LeadStore } from "./store";
import type { Lead } from "./types";

const lead = (text = "Message: our secret plans"): Lead => ({
  kind: "contact",
  subject: "New contact form message from Ada",
  fromName: "Ada",
  replyTo: "ada@example.com",
  text,
});
const hash = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const T = Date.parse("2026-11-23T10:00:00Z");
const [HOUR, DAY] = [3_600_000, 86_400_000];
let n = 0;
const add = (store: LeadStore, text?: string, now = T, perHour = 60, group: string | null = null) =>
  store.insert(lead(text), { id: `L${++n}`, key: `k-${text ?? "same"}`, now, perHour, group });

const { place, open } = leadDatabases();
/** The store at `where` as one process opens it: its schema brought up to date first. */
async function storeAt(where: Place, db: Db = open(where)) {
  await prepareStore(db);
  return leadStore(db);
}
/** A SQLite store at `file` holding one lead, closed, as a stopped server leaves it. */
async function leftWith(file: string, text: string) {
  const db = openDb({ file });
  await add(await storeAt({ file }, db), text);
  await db.close();
}
/** A database whose claims are measured on `at` instead of its own clock (SQLite: the host's monotonic one; PostgreSQL: the database's). */
const leaseClock = (db: Db, at: () => number, prefix = db.leasePrefix): Db => ({ ...db, leaseNow: async () => at(), leasePrefix: prefix });

describe("opening a SQLite store", () => {
  it("creates the database in WAL mode with synchronous=FULL, folder 0700 and file 0600", async () => {
    const { file } = await place("sqlite");
    await add(await storeAt({ file }), "a");
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    for (const path of [file, `${file}-wal`]) expect(statSync(path).mode & 0o777).toBe(0o600);
    const probe = new DatabaseSync(file, { readOnly: true });
    expect(probe.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    probe.close();
  });

  it("refuses a damaged file, a file that is not a database and a folder, and never changes their bytes", async () => {
    const { file } = await place("sqlite");
    await leftWith(file, "kept");
    const good = readFileSync(file);
    // A damaged header ("SQLite format 3" overwritten), then a foreign file.
    for (const bytes of [Buffer.concat([Buffer.from("garbage garbage!"), good.subarray(16)]), Buffer.from("not a database at all\n".repeat(100))]) {
      writeFileSync(file, bytes);
      const before = hash(file);
      expect(() => openDb({ file })).toThrow(StoreUnusable);
      expect(hash(file)).toBe(before);
    }
    // Fixed (the good bytes back): everything it held is there.
    writeFileSync(file, good);
    expect((await (await storeAt({ file })).list(["pending"])).map((r) => r.lead?.text)).toEqual(["kept"]);
    const folder = join(file, "..", "folder.db");
    mkdirSync(folder);
    expect(() => openDb({ file: folder })).toThrow(/not a file/);
  });

  it.each([
    [3, undefined, /older release \(schema 3\)/],
    [5, 4, /newer version \(schema 5\)/],
  ])("one of schema %i (of a release older than the one before, or newer) is refused, untouched", async (version, known, refusal) => {
    const { file } = await place("sqlite");
    await leftWith(file, "from another release");
    const other = new DatabaseSync(file);
    other.exec(`PRAGMA user_version = ${version}`);
    other.close();
    const before = hash(file);
    // The older one is upgraded through the release before first; the newer one is left to its own release.
    await expect((async () => prepareStore(openDb({ file }, { version: known })))()).rejects.toThrow(refusal);
    expect(hash(file)).toBe(before);
  });
});

describe.each(ENGINES)("writing (%s)", (engine) => {
  it("the same form again answers the first lead's id and stores nothing new, within the dedupe window", async () => {
    const store = await storeAt(await place(engine));
    const first = await add(store, "hello");
    expect(await add(store, "hello", T + 5_000)).toEqual({ id: first.id, duplicate: true, held: false, firstHeld: false });
    expect((await add(store, "hello again", T + 6_000)).duplicate).toBe(false);
    expect(await store.list(["pending"])).toHaveLength(2);
    expect((await add(store, "hello", T + DEDUPE_WINDOW_MS + 1)).duplicate).toBe(false);
  });

  it("past the hourly ceiling a lead is stored but held; the first hold says so once; the operator's release sends them at once and takes none of the ceiling's room", async () => {
    const store = await storeAt(await place(engine));
    const results = [];
    for (const [i, t] of ["a", "b", "c", "d"].entries()) results.push(await add(store, t, T + i, 2));
    expect(results.map((r) => `${r.held} ${r.firstHeld} ${r.heldFor}`)).toEqual([
      "false false undefined",
      "false false undefined",
      "true true ceiling",
      "true false ceiling",
    ]);
    expect(await store.stats(T)).toMatchObject({ pending: 2, held: 2 });
    expect(await store.requeue("held", [results[2]!.id], T + 10)).toBe(1);
    expect(await store.requeue("held", [], T + 10)).toBe(1);
    expect(await store.stats(T)).toMatchObject({ pending: 4, held: 0 });
    expect((await store.claimDue(T + 10, 5, 30_000)).map((r) => r.id)).toEqual(results.map((r) => r.id));
    // a and b are an hour old: the hour has room again, as the two released took none of it.
    expect((await add(store, "e", T + HOUR + 5, 2)).held).toBe(false);
  });

  it("a held lead keeps the rule that held it, and the counts say why and from how many address codes; let go, it says nothing", async () => {
    const store = await storeAt(await place(engine));
    const results = [];
    // Six from one address at once: five let through, the sixth held for its share; then one-shot addresses up to the ceiling (7), and one over it.
    for (let i = 0; i < 6; i++) results.push(await add(store, `office ${i}`, T + i, 7, "code-office"));
    for (const code of ["code-a", "code-b", "code-c"]) results.push(await add(store, code, T + 10, 7, code));
    expect(results.map((r) => r.heldFor ?? "-")).toEqual(["-", "-", "-", "-", "-", "address", "-", "-", "ceiling"]);
    expect(await store.stats(T + 10)).toMatchObject({ held: 2, heldFor: { address: 1, ceiling: 1 }, heldAddresses: 2 });
    expect((await store.list(["held"])).map((r) => `${r.group} ${r.parkedReason}`)).toEqual(["code-office address", "code-c ceiling"]);
    // Let go by the ceiling, or by the operator: pending, with no reason left to show.
    expect(await store.releaseHeld(T + HOUR + 20, 7)).toBeDefined();
    expect(await store.requeue("held", [], T + HOUR + 20)).toBe(1);
    expect((await store.list(["pending"])).filter((r) => r.parkedReason !== null)).toEqual([]);
    expect(await store.stats(T + HOUR + 20)).toMatchObject({ held: 0, heldFor: {}, heldAddresses: 0 });
  });

  it("discard hands each held lead out with no lock held (a slow reader keeps no visitor's lead out): one released meanwhile goes on (the rest of discard: cli.test.ts)", async () => {
    const store = await storeAt(await place(engine));
    const honest = await add(store, "honest, held", T, 0, "code-h");
    const slow = await store.discard([honest.id], async () => expect(await store.requeue("held", [honest.id], T + 4)).toBe(1));
    expect(slow).toEqual({ read: 1, gone: 0 });
    expect(await store.get(honest.id)).toMatchObject({ status: "pending" });
  });

  it("held leads do not count toward the ceiling: once the last hour has room they go out on their own, oldest first, one per hour / ceiling", async () => {
    const store = await storeAt(await place(engine));
    const results = [];
    for (const [i, t] of ["a", "b", "c", "d", "e"].entries()) results.push(await add(store, t, T + i, 2));
    const [, , c, d, e] = results;
    expect([c, d, e].map((r) => r!.held)).toEqual([true, true, true]);
    expect(await store.releaseHeld(T + HOUR - 10, 2), "within the hour").toBeUndefined();
    // a and b are an hour old: the three held ones do not fill the hour that holds them.
    expect(await store.releaseHeld(T + HOUR + 5, 2)).toEqual({ id: c!.id, kind: "contact" });
    expect(await store.releaseHeld(T + HOUR + 10, 2), "sooner than the ceiling's pace").toBeUndefined();
    expect(await store.releaseHeld(T + HOUR + 5 + HOUR / 2, 2)).toEqual({ id: d!.id, kind: "contact" });
    expect((await add(store, "f", T + HOUR + 6 + HOUR / 2, 2)).held, "the last hour is full again").toBe(true);
    expect(await store.releaseHeld(T + 2 * HOUR + 5, 2)).toEqual({ id: e!.id, kind: "contact" });
    expect(await store.stats(T + 2 * HOUR + 5)).toMatchObject({ pending: 5, held: 1 });
  });

  it("two processes storing the same form at once store it once; over the ceiling, exactly the leads past it are held", async () => {
    const where = await place(engine);
    const [a, b] = [await storeAt(where), await storeAt(where)];
    const same = await Promise.all([add(a, "twice"), add(b, "twice"), add(a, "twice"), add(b, "twice")]);
    expect(new Set(same.map((r) => r.id)).size).toBe(1);
    expect(same.filter((r) => !r.duplicate)).toHaveLength(1);
    const many = await Promise.all(Array.from({ length: 8 }, (_, i) => add(i % 2 ? a : b, `many ${i}`, T + 1, 5)));
    expect(many.filter((r) => r.held)).toHaveLength(4); // "twice" and 4 of these fill the hour
    expect(many.filter((r) => r.firstHeld)).toHaveLength(1);
  });

  it("while another connection holds the write lock, a write waits and then fails; once it lets go, writes work", async () => {
    const where = await place(engine);
    const store = await storeAt(where);
    let release: () => Promise<void>;
    if (engine === "sqlite") {
      const other = new DatabaseSync(where.file, { timeout: 0 });
      other.exec("BEGIN IMMEDIATE");
      release = async () => (other.exec("ROLLBACK"), other.close());
    } else {
      // Another container in the middle of an intake (its exclusive transaction), stuck there.
      let [letGo, locked] = [() => {}, () => {}];
      const held = new Promise<void>((resolve) => (letGo = resolve));
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const transaction = open(where).transaction(async () => (locked(), held), { exclusive: true });
      await holding;
      release = async () => (letGo(), transaction);
    }
    const error = await add(store, "locked").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // SQLite: SQLITE_BUSY once the wait (3 s) is over; PostgreSQL: its lock_timeout (55P03) or the query's own limit.
    if (engine === "sqlite") expect(Number(causeOf(error).code) & 0xff).toBe(5);
    else expect(String(causeOf(error).code ?? (error as Error).message)).toMatch(/55P03|57014|timeout/);
    await release();
    expect((await add(store, "after")).duplicate).toBe(false);
    expect((await store.list(["pending"])).map((r) => r.lead?.text)).toEqual(["after"]);
  });
});

describe("SQLite on a real tmpfs (when the test may mount one)", () => {
  const canMount = (() => {
    const dir = mkdtempSync(join(tmpdir(), "mount-probe-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
      execFileSync("umount", [dir]);
      return true;
    } catch {
      return false;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  /** Runs `test` with the path of a store on a tmpfs of 256 KiB of its own, unmounted after. */
  async function onTmpfs(test: (file: string, dir: string) => Promise<void>) {
    const dir = mkdtempSync(join(tmpdir(), "tmpfs-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
    try {
      await test(join(dir, "leads.db"), dir);
    } finally {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.skipIf(!canMount)("on a file system that is read-only at start, the store is refused at once (the start stops), its bytes unchanged", () =>
    onTmpfs(async (file, dir) => {
      await leftWith(file, "before");
      const before = hash(file);
      execFileSync("mount", ["-o", "remount,ro", dir]);
      // At once: EROFS is the check made before SQLite opens the file, so the store is refused
      // without SQLite ever trying it, however long that takes on this machine.
      expect(() => openDb({ file })).toThrow(/read-only \(EROFS\)/);
      expect(hash(file)).toBe(before);
    }),
  );
});

describe.each(ENGINES)("delivering (%s)", (engine) => {
  it("two processes' connections never claim the same lead; a claim holds for its lease on the lease clock, whatever the wall clock says, then runs out, and a failure past it is not the first one's to write", async () => {
    const where = await place(engine);
    let mono = 5_000;
    const on = () => leaseClock(open(where), () => mono);
    const [a, b] = [await storeAt(where, on()), await storeAt(where, on())];
    await add(a, "one");
    await add(a, "two");
    const claimedByA = (await a.claimDue(T, 10, 30_000)).map((r) => r.id).sort();
    expect(claimedByA).toHaveLength(2);
    // The other's wall clock a second, a day ahead, a day behind: the claims are still A's.
    for (const wall of [T + 1_000, T + DAY, T - DAY]) expect(await b.claimDue(wall, 10, 30_000)).toEqual([]);
    expect(await b.nextDueAt(T + 1_000)).toBe(T + 1_000 + 30_000);
    mono += 29_999;
    expect(await b.claimDue(T, 10, 30_000)).toEqual([]);
    mono += 1;
    expect((await b.claimDue(T, 10, 30_000)).map((r) => r.id).sort()).toEqual(claimedByA);
    // B's now: a failure is no longer A's to write (its claim ran out and was taken).
    expect([await a.retryLater(claimedByA[0]!, T, 1_000), await a.park(claimedByA[1]!, T, "http", 401)]).toEqual([0, 0]);
  });

  it("claims come in the order the leads fell due, whatever order they were written in", async () => {
    const store = await storeAt(await place(engine));
    const written = [];
    for (let i = 0; i < 12; i++) written.push((await add(store, `lead ${i}`, T + (12 - i) * 1_000)).id);
    expect((await store.claimDue(T + 60_000, 12, 30_000)).map((r) => r.id)).toEqual(written.reverse());
  });

  it("a clock that jumps back does not stall a lead: a retry time further ahead than the schedule ever waits counts as due", async () => {
    const store = await storeAt(await place(engine));
    const { id } = await add(store, "jump");
    await store.claimDue(T, 1, 30_000);
    await store.retryLater(id, T, 60_000);
    expect(await store.claimDue(T + 1_000, 1, 30_000)).toEqual([]);
    // As far ahead as the schedule ever waits (and a minute more): still waited for.
    expect(await store.claimDue(T + 60_000 - MAX_DELAY_MS - 60_000, 1, 30_000)).toEqual([]);
    expect((await store.claimDue(T - DAY, 1, 30_000)).map((r) => r.id)).toEqual([id]);
  });

  it("keeps the retry window (waits scheduled) and the first acceptance with the lead, across a reopen", async () => {
    const where = await place(engine);
    const db = open(where);
    const store = await storeAt(where, db);
    const { id } = await add(store, "window");
    await store.claimDue(T, 1, 30_000);
    await store.retryLater(id, T, 2_000);
    await db.close();
    const reopened = await storeAt(where);
    expect((await reopened.list(["pending"]))[0]).toMatchObject({ id, firstAcceptedAt: T, retryMs: 2_000, attempts: 1 });
    expect(await reopened.nextDueAt(T)).toBe(T + 2_000);
  });

  it("retention: a delivered lead's text is erased after LEAD_RETENTION_DAYS (at once with 0), its row after a day; parked leads stay", async () => {
    const store = await storeAt(await place(engine));
    const [kept, erased, parked] = [await add(store, "kept 30 days"), await add(store, "erased at delivery"), await add(store, "parked")];
    await store.claimDue(T, 3, 30_000);
    await store.delivered(kept.id, T, 30 * DAY);
    await store.delivered(erased.id, T, 0);
    await store.park(parked.id, T, "http", 401);
    const text = async (id: string) => (await store.list(["delivered", "parked"])).find((r) => r.id === id)?.lead?.text;
    expect([await text(kept.id), await text(erased.id)]).toEqual(["kept 30 days", undefined]);
    expect(await store.get(parked.id)).toMatchObject({ status: "parked", parkedReason: "http", parkedStatus: 401, attempts: 1 });
    // Erased at delivery, the same form posted again within a day is still the same lead.
    expect((await add(store, "erased at delivery", T + 1_000)).id).toBe(erased.id);
    await store.purge(T + 29 * DAY, 30 * DAY);
    expect(await text(kept.id)).toBe("kept 30 days");
    await store.purge(T + 30 * DAY, 30 * DAY);
    expect(await store.list(["delivered"])).toEqual([]);
    expect(await text(parked.id)).toBe("parked");
  });
});

it("a claim on SQLite made before the host restarted (another boot, whose clock has restarted) holds nothing", async () => {
  const where = await place("sqlite");
  const booted = (at: number, boot: string) =>
    storeAt(
      where,
      leaseClock(open(where), () => at, boot),
    );
  const before = await booted(9_000_000, "boot-1/");
  await add(before, "across a reboot");
  expect(await before.claimDue(T, 1, 30_000)).toHaveLength(1);
  expect(await (await booted(1_000, "boot-2/")).claimDue(T, 1, 30_000)).toHaveLength(1);
});

it("restore writes 500 leads a transaction: cut short, it keeps what it added; run again, it adds the rest", async () => {
  const where = await place("sqlite");
  const db = open(where);
  await add(await storeAt(where, db), "one");
  const [row] = await db.all("SELECT * FROM leads");
  const rows = (broken?: number) => Array.from({ length: 1200 }, (_, i) => ({ ...row, id: `R${i}`, kind: i === broken ? null : row!.kind }));
  await expect(copyLeads(rows(700), db, T)).rejects.toThrow(/NOT NULL/);
  expect(await db.get("SELECT count(*) AS n FROM leads")).toEqual({ n: 501 });
  expect(await copyLeads(rows(), db, T)).toBe(700);
});

describe("a data folder's SQLite store met with DATABASE_URL", () => {
  it("moves each lead into PostgreSQL once, with its status, and renames the file; started again, nothing moves twice", async () => {
    const where = await place("postgres");
    // The data folder as a single container left it: one lead of each status.
    const sqlite = openDb({ file: where.file });
    const old = await storeAt({ file: where.file }, sqlite);
    const [pending, held] = [await add(old, "pending"), await add(old, "held", T, 0, "office")];
    const [parked, delivered] = [await add(old, "parked"), await add(old, "delivered")];
    await old.claimDue(T, 10, 30_000); // a claim the stopped process left: it holds nothing in PostgreSQL
    await old.retryLater(pending.id, T, 2_000);
    await old.park(parked.id, T + 1, "http", 401);
    await old.delivered(delivered.id, T + 2, 30 * DAY, "5725767000000524157");
    await sqlite.close();

    const db = open(where);
    expect(await moveIntoPostgres(db, where.file)).toBe(4);
    expect([existsSync(where.file), existsSync(`${where.file}.moved-to-postgresql`)]).toEqual([false, true]);
    const store = leadStore(db);
    const all = await store.list(["pending", "held", "parked", "delivered"]);
    expect(all.map((r) => r.id)).toEqual([pending.id, held.id, parked.id, delivered.id]);
    expect(all.map((r) => `${r.status} ${r.lead?.text}`)).toEqual(["pending pending", "held held", "parked parked", "delivered delivered"]);
    expect(all.find((r) => r.id === pending.id)).toMatchObject({ attempts: 1, retryMs: 2_000, firstAcceptedAt: T });
    expect(all.find((r) => r.id === parked.id)).toMatchObject({ parkedReason: "http", parkedStatus: 401 });
    expect(all.find((r) => r.id === delivered.id)).toMatchObject({ deliveredAt: T + 2, record: "5725767000000524157" });
    // Due as they were; the old claims hold nothing; the dedupe and the held lead's address go with them.
    expect((await store.claimDue(T + 2_000, 10, 30_000)).map((r) => r.id)).toEqual([pending.id]);
    expect((await add(store, "delivered", T + 3)).id).toBe(delivered.id);
    expect((await store.get(held.id))?.group).toBe("office");

    // Started again: nothing to move. Had the move stopped before the rename, the file moves
    // again and finds every lead there already: each stays as PostgreSQL has it.
    expect(await moveIntoPostgres(db, where.file)).toBeUndefined();
    await store.delivered(pending.id, T + 4, 30 * DAY);
    copyFileSync(`${where.file}.moved-to-postgresql`, where.file);
    expect(await moveIntoPostgres(db, where.file)).toBe(0);
    expect((await store.list(["pending", "held", "parked", "delivered"])).map((r) => r.status)).toEqual(["delivered", "held", "parked", "delivered"]);
  });

  it("a server still running on the file (a rolling update) stops the move, untouched; stopped, its leads move", async () => {
    const where = await place("postgres");
    const running = openDb({ file: where.file });
    const lead = await add(await storeAt({ file: where.file }, running), "thanked by the old server");
    const db = open(where);
    await expect(moveIntoPostgres(db, where.file)).rejects.toThrow(/another server still has it open/);
    expect([existsSync(where.file), existsSync(`${where.file}.moved-to-postgresql`)]).toEqual([true, false]);
    await running.close();
    expect(await moveIntoPostgres(db, where.file)).toBe(1);
    expect((await leadStore(db).get(lead.id))?.lead?.text).toBe("thanked by the old server");
  });

  it("without DATABASE_URL nothing moves, and the file stays where it is", async () => {
    const { file } = await place("sqlite");
    await add(await storeAt({ file }), "stays");
    expect(await moveIntoPostgres(open({ file }), file)).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });
});

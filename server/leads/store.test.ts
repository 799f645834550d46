/**
 * The SQLite store against real files: its failure paths (a damaged or foreign file at start, a
 * lock held by another connection, a full disk on a real tmpfs when the test may mount one), the
 * dedupe, the ceiling, claims between two processes' connections, clock jumps and retention.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { DEDUPE_WINDOW_MS, MAX_DELAY_MS } from "./schedule";
import { retryWhileBusy, sqliteCause, StoreUnusable } from "./database";
import { openStore } from "./store";
import type { Lead } from "./types";

const lead = (text = "Message: our secret plans"): Lead => ({
  kind: "contact",
  subject: "New contact form message from Ada",
  fromName: "Ada",
  replyTo: "ada@example.com",
  text,
});
const dbFile = () => join(mkdtempSync(join(tmpdir(), "store-")), "data", "leads.db");
const hash = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const T = Date.parse("2026-11-23T10:00:00Z");
const HOUR = 3_600_000;
let n = 0;
const add = (store: ReturnType<typeof openStore>, text?: string, now = T, perHour = 60) =>
  store.insert(lead(text), { id: `L${++n}`, key: `k-${text ?? "same"}`, now, perHour });

describe("opening the store", () => {
  it("creates the database in WAL mode with synchronous=FULL, folder 0700 and file 0600", () => {
    const file = dbFile();
    const store = openStore(file);
    add(store, "a");
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    for (const path of [file, `${file}-wal`]) expect(statSync(path).mode & 0o777).toBe(0o600);
    const probe = new DatabaseSync(file, { readOnly: true });
    expect(probe.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    probe.close();
    store.close();
  });

  it("refuses a damaged file and a file that is not a database, and never changes their bytes", () => {
    const file = dbFile();
    const store = openStore(file);
    add(store, "kept");
    store.checkpoint();
    store.close();
    const good = readFileSync(file);
    // A damaged header ("SQLite format 3" overwritten), then a foreign file.
    for (const bytes of [Buffer.concat([Buffer.from("garbage garbage!"), good.subarray(16)]), Buffer.from("not a database at all\n".repeat(100))]) {
      writeFileSync(file, bytes);
      const before = hash(file);
      expect(() => openStore(file)).toThrow(StoreUnusable);
      expect(hash(file)).toBe(before);
    }
    // Fixed (the good bytes back): everything it held is there.
    writeFileSync(file, good);
    const fixed = openStore(file);
    expect(fixed.list(["pending"]).map((r) => r.lead?.text)).toEqual(["kept"]);
    fixed.close();
  });

  it("refuses a folder where the database should be", () => {
    const file = dbFile();
    mkdirSync(file, { recursive: true });
    expect(() => openStore(file)).toThrow(/not a file/);
  });
});

describe("writing", () => {
  it("the same form again answers the first lead's id and stores nothing new, within the dedupe window", () => {
    const store = openStore(dbFile());
    const first = add(store, "hello");
    expect(add(store, "hello", T + 5_000)).toEqual({ id: first.id, duplicate: true, held: false, firstHeld: false });
    expect(add(store, "hello again", T + 6_000).duplicate).toBe(false);
    expect(store.list(["pending"])).toHaveLength(2);
    expect(add(store, "hello", T + DEDUPE_WINDOW_MS + 1).duplicate).toBe(false);
    store.close();
  });

  it("past the hourly ceiling a lead is stored but held; the first hold says so once; release sends them on", () => {
    const store = openStore(dbFile());
    const results = ["a", "b", "c", "d"].map((t, i) => add(store, t, T + i, 2));
    expect(results.map((r) => [r.held, r.firstHeld])).toEqual([
      [false, false],
      [false, false],
      [true, true],
      [true, false],
    ]);
    expect(store.stats(T)).toMatchObject({ pending: 2, held: 2 });
    expect(store.requeue("held", [results[2]!.id], T)).toBe(1);
    expect(store.requeue("held", [], T)).toBe(1);
    expect(store.stats(T)).toMatchObject({ pending: 4, held: 0 });
    // An hour later the ceiling has room again.
    expect(add(store, "e", T + 3_600_010, 2).held).toBe(false);
    store.close();
  });

  it("held leads do not count toward the ceiling: once the last hour has room they go out on their own, oldest first, one per hour / ceiling", () => {
    const store = openStore(dbFile());
    const [, , c, d, e] = ["a", "b", "c", "d", "e"].map((t, i) => add(store, t, T + i, 2));
    expect([c, d, e].map((r) => r!.held)).toEqual([true, true, true]);
    expect(store.releaseHeld(T + HOUR - 10, 2), "within the hour").toBeNull();
    // a and b are an hour old: the three held ones do not fill the hour that holds them.
    expect(store.releaseHeld(T + HOUR + 5, 2)).toEqual({ id: c!.id, kind: "contact" });
    expect(store.releaseHeld(T + HOUR + 10, 2), "sooner than the ceiling's pace").toBeNull();
    expect(store.releaseHeld(T + HOUR + 5 + HOUR / 2, 2)).toEqual({ id: d!.id, kind: "contact" });
    expect(add(store, "f", T + HOUR + 6 + HOUR / 2, 2).held, "the last hour is full again").toBe(true);
    expect(store.releaseHeld(T + 2 * HOUR + 5, 2)).toEqual({ id: e!.id, kind: "contact" });
    expect(store.stats(T + 2 * HOUR + 5)).toMatchObject({ pending: 5, held: 1 });
    store.close();
  });

  it("a lead the operator releases goes at once and takes none of the ceiling's room", () => {
    const store = openStore(dbFile());
    const [, held] = [add(store, "a", T, 1), add(store, "b", T + 1, 1)];
    expect(held.held).toBe(true);
    expect(store.requeue("held", [], T + 2)).toBe(1);
    expect(store.claimDue(() => T + 2, 5, 30_000).map((r) => r.id)).toContain(held.id);
    expect(add(store, "c", T + HOUR + 1, 1).held).toBe(false);
    store.close();
  });

  it("a database of schema 1 is brought up to date: leads let through count toward the ceiling, held ones not; handed leads without their text are done", () => {
    const file = dbFile();
    const store = openStore(file);
    const [pending, handed] = [add(store, "pending"), add(store, "handed")];
    const held = add(store, "held", T, 0);
    store.close();
    const old = new DatabaseSync(file);
    old.exec(
      "DROP INDEX leads_by_group; ALTER TABLE leads DROP COLUMN client_group; DROP INDEX leads_by_admission; ALTER TABLE leads DROP COLUMN admitted_at; ALTER TABLE leads DROP COLUMN crm_record; PRAGMA user_version = 1;",
    );
    old.prepare("UPDATE leads SET status = 'handed', payload = NULL WHERE id = ?").run(handed.id);
    old.close();
    const upgraded = openStore(file);
    expect(upgraded.list(["pending", "held", "delivered"]).map((r) => [r.id, r.status])).toEqual([
      [pending.id, "pending"],
      [handed.id, "delivered"],
      [held.id, "held"],
    ]);
    expect(add(upgraded, "within the hour", T + 10, 3).held).toBe(false);
    expect(add(upgraded, "over it", T + 11, 3).held).toBe(true);
    upgraded.close();
  });

  it("a database of schema 2 is brought up to date: its leads as they were, and a delivery keeps the CRM record's id beside its lead", () => {
    const file = dbFile();
    const store = openStore(file);
    const [sent, waiting] = [add(store, "sent"), add(store, "waiting")];
    store.delivered(sent.id, T + 1, 86_400_000);
    store.close();
    const old = new DatabaseSync(file);
    old.exec("DROP INDEX leads_by_group; ALTER TABLE leads DROP COLUMN client_group; ALTER TABLE leads DROP COLUMN crm_record; PRAGMA user_version = 2;");
    old.close();
    const upgraded = openStore(file);
    expect(upgraded.list(["pending", "delivered"]).map((r) => [r.id, r.status, r.record])).toEqual([
      [sent.id, "delivered", null],
      [waiting.id, "pending", null],
    ]);
    upgraded.delivered(waiting.id, T + 2, 86_400_000, "5725767000000524157");
    expect(upgraded.inCrm().map((r) => [r.id, r.record, r.lead?.text])).toEqual([[waiting.id, "5725767000000524157", "waiting"]]);
    upgraded.close();
    const version = new DatabaseSync(file);
    expect(version.prepare("PRAGMA user_version").get()).toEqual({ user_version: 4 });
    version.close();
  });

  it("while another connection holds the write lock, a write waits and then fails (SQLITE_BUSY); once it lets go, writes work", async () => {
    const file = dbFile();
    const store = openStore(file);
    const other = new DatabaseSync(file, { timeout: 0 });
    other.exec("BEGIN IMMEDIATE");
    const error = await retryWhileBusy(() => add(store, "locked"), 50).catch((e: unknown) => e);
    expect(sqliteCause(error).code! & 0xff).toBe(5);
    other.exec("ROLLBACK");
    other.close();
    expect(add(store, "after").duplicate).toBe(false);
    expect(store.list(["pending"]).map((r) => r.lead?.text)).toEqual(["after"]);
    store.close();
  });

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

  it.skipIf(!canMount)("on a full disk (a real tmpfs) a write fails as a whole; after space returns, every lead it took is there and it writes again", () => {
    const dir = mkdtempSync(join(tmpdir(), "full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
    try {
      const store = openStore(join(dir, "leads.db"));
      const taken: string[] = [];
      let failure: unknown;
      for (let i = 0; i < 400 && !failure; i++) {
        try {
          add(store, `lead ${i} ${"x".repeat(2_000)}`);
          taken.push(`lead ${i}`);
        } catch (error) {
          failure = error;
        }
      }
      expect(sqliteCause(failure).code! & 0xff).toBe(13); // SQLITE_FULL
      store.close();
      execFileSync("mount", ["-o", "remount,size=4m", dir]);
      const again = openStore(join(dir, "leads.db"));
      expect(again.list(["pending"]).map((r) => r.lead!.text.slice(0, r.lead!.text.indexOf(" x")))).toEqual(taken);
      expect(add(again, "after the disk was freed").duplicate).toBe(false);
      again.close();
    } finally {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!canMount)("on a file system that is read-only at start, the store is refused at once (the start stops), its bytes unchanged", () => {
    const dir = mkdtempSync(join(tmpdir(), "ro-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir]);
    try {
      const file = join(dir, "leads.db");
      const store = openStore(file);
      add(store, "before");
      store.checkpoint();
      store.close();
      const before = hash(file);
      execFileSync("mount", ["-o", "remount,ro", dir]);
      // At once: EROFS is the check made before SQLite opens the file, so the store is refused
      // without SQLite ever trying it, however long that takes on this machine.
      expect(() => openStore(file)).toThrow(/read-only \(EROFS\)/);
      expect(hash(file)).toBe(before);
    } finally {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("delivering", () => {
  it("two processes' connections never claim the same lead; a claim holds for its lease on the host's monotonic clock, whatever the wall clock says, then runs out", () => {
    const file = dbFile();
    let mono = 5_000;
    const clock = { monotonic: () => mono, boot: "boot-1" };
    const [a, b] = [openStore(file, clock), openStore(file, clock)];
    add(a, "one");
    add(a, "two");
    const claimedByA = a.claimDue(() => T, 10, 30_000).map((r) => r.id);
    expect(claimedByA).toHaveLength(2);
    // The other's wall clock a second, a day ahead, a day behind: the claims are still A's.
    for (const wall of [T + 1_000, T + 86_400_000, T - 86_400_000]) expect(b.claimDue(() => wall, 10, 30_000)).toEqual([]);
    expect(b.nextDueAt(T + 1_000)).toBe(T + 1_000 + 30_000);
    mono += 29_999;
    expect(b.claimDue(() => T, 10, 30_000)).toEqual([]);
    mono += 1;
    expect(b.claimDue(() => T, 10, 30_000).map((r) => r.id)).toEqual(claimedByA);
    a.close();
    b.close();
  });

  it("a claim made before the host restarted (another boot, whose clock has restarted) holds nothing", () => {
    const file = dbFile();
    const before = openStore(file, { monotonic: () => 9_000_000, boot: "boot-1" });
    add(before, "across a reboot");
    expect(before.claimDue(() => T, 1, 30_000)).toHaveLength(1);
    before.close();
    const after = openStore(file, { monotonic: () => 1_000, boot: "boot-2" });
    expect(after.claimDue(() => T, 1, 30_000)).toHaveLength(1);
    after.close();
  });

  it("a clock that jumps back does not stall a lead: a retry time further ahead than the schedule ever waits counts as due", () => {
    const store = openStore(dbFile());
    const { id } = add(store, "jump");
    store.claimDue(() => T, 1, 30_000);
    store.retryLater(id, T, 60_000);
    expect(store.claimDue(() => T + 1_000, 1, 30_000)).toEqual([]);
    // As far ahead as the schedule ever waits (and a minute more): still waited for.
    expect(store.claimDue(() => T + 60_000 - MAX_DELAY_MS - 60_000, 1, 30_000)).toEqual([]);
    const dayBack = T - 86_400_000;
    expect(store.claimDue(() => dayBack, 1, 30_000).map((r) => r.id)).toEqual([id]);
    store.close();
  });

  it("keeps the retry window (waits scheduled) and the first acceptance with the lead, across a reopen", () => {
    const file = dbFile();
    const store = openStore(file);
    const { id } = add(store, "window");
    store.claimDue(() => T, 1, 30_000);
    store.retryLater(id, T, 2_000);
    store.close();
    const reopened = openStore(file);
    expect(reopened.list(["pending"])[0]).toMatchObject({ id, firstAcceptedAt: T, retryMs: 2_000, attempts: 1 });
    reopened.close();
  });

  it("with Redis, a lead sent from its own record is delivered there; one sent for another container is kept (its id, across a reopen) until heard of", () => {
    const file = dbFile();
    const store = openStore(file);
    const { id } = add(store, "sent-here");
    store.handed(id);
    store.sent(id, T, 0);
    store.sent("20261123-OTHERS00", T, 0);
    expect(store.get(id)).toMatchObject({ status: "delivered", deliveredAt: T, lead: null });
    expect(store.sentForOthers()).toEqual([{ id: "20261123-OTHERS00", deliveredAt: T }]);
    expect([id, "20261123-OTHERS00", "20261123-NEVERSEN"].map((i) => store.knownDelivered(i))).toEqual([true, true, false]);
    store.close();
    const reopened = openStore(file);
    expect(reopened.knownDelivered("20261123-OTHERS00")).toBe(true);
    reopened.heardOf("20261123-OTHERS00");
    expect([reopened.sentForOthers(), reopened.knownDelivered("20261123-OTHERS00")]).toEqual([[], false]);
    reopened.close();
  });

  it("retention: a delivered lead's text is erased after LEAD_RETENTION_DAYS (at once with 0), its row after a day; parked leads stay", () => {
    const store = openStore(dbFile());
    const [kept, erased, parked] = [add(store, "kept 30 days"), add(store, "erased at delivery"), add(store, "parked")];
    store.claimDue(() => T, 3, 30_000);
    store.delivered(kept.id, T, 30 * 86_400_000);
    store.delivered(erased.id, T, 0);
    store.park(parked.id, T, "http", 401);
    const text = (id: string) => store.list(["delivered", "parked"]).find((r) => r.id === id)?.lead?.text;
    expect([text(kept.id), text(erased.id)]).toEqual(["kept 30 days", undefined]);
    // Erased at delivery, the same form posted again within a day is still the same lead.
    expect(add(store, "erased at delivery", T + 1_000).id).toBe(erased.id);
    store.purge(T + 29 * 86_400_000, 30 * 86_400_000);
    expect(text(kept.id)).toBe("kept 30 days");
    store.purge(T + 30 * 86_400_000, 30 * 86_400_000);
    expect(store.list(["delivered"])).toEqual([]);
    expect(text(parked.id)).toBe("parked");
    store.close();
  });
});

/**
 * The lead queue (decision 0046): its own rules once, on SQLite (store.test.ts proves the SQL under them on both engines);
 * what differs by engine on that engine. Whole sites are tests/ops/'s (operator, zoho-crm, lead-delivery, postgres, stop).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { testClock } from "../../tests/support/clock";
import { ENGINES, reports, leadDatabases, type Place } from "../../tests/support/engines";
import { quietLog, recordingLog, until } from "../../tests/support/quiet-log";
import { StoreUnusable, type Db } from "../db";
import { createLeadQueue, type QueueOptions } from "./queue";
import { RETRY_WINDOW_MS } from "./schedule";
import { leadStore, prepareStore } from "./store";
import type { DeliveryOutcome, Lead, LeadEvents, StoredLead, Transport } from "./types";

const [subject, text] = ["New contact form message from Ada", "Name: Ada\nMessage: our secret plans"];
const lead: Lead = { kind: "contact", subject, fromName: "Ada", replyTo: "ada@example.com", text };
const another = (text: string): Lead => ({ ...lead, text });
const failed: DeliveryOutcome = { ok: false, retry: true, reason: "http", status: 500 };
const refused: DeliveryOutcome = { ok: false, retry: false, reason: "http", status: 401 };
const taken: DeliveryOutcome = { ok: true, status: 200 };

/** A transport that answers each attempt with the next scripted outcome (the last one repeats). */
function scripted(...outcomes: DeliveryOutcome[]) {
  const attempts: StoredLead[] = [];
  const transport: Transport = { name: "fake", deliver: async (l) => outcomes[Math.min(attempts.push(l), outcomes.length) - 1]! };
  return { transport, attempts };
}

/** A transport whose attempts wait until `answer` is called, or until the stop cuts them short (outcome `stopped`). */
function waiting() {
  const attempts: { lead: StoredLead; stop?: AbortSignal; answer: (outcome: DeliveryOutcome) => void }[] = [];
  const transport: Transport = {
    name: "waiting",
    deliver: (l, stop) =>
      new Promise((answer) => {
        attempts.push({ lead: l, stop, answer });
        stop?.addEventListener("abort", () => answer({ ok: false, retry: true, reason: "stopped" }), { once: true });
      }),
  };
  return { transport, attempts, answer: (i: number, outcome: DeliveryOutcome) => attempts[i]!.answer(outcome) };
}

const storeFailed = (lines: Record<string, unknown>[]) => lines.filter((l) => /^lead_store_\w+_failed$/.test(String(l.event)));

/** What the server passes (lead-inbox.ts) at the default configuration. */
const defaults = { retentionMs: 30 * 86_400_000, perHour: 60, leaseMs: 40_000 };
/** The queue looks at its database, and retries, every few milliseconds instead of seconds (the schedule itself: schedule.test.ts). */
const fast = { pollMs: 50, backoff: () => 50 };

/** `done`, after moving `time` a second on: a loop waiting out a failing store (faults.ts) looks again at once. */
const passing = (time: ReturnType<typeof testClock>, done: boolean) => (time.advance(1_000), done);

/** Resolves once the queue's loop has gone to sleep `n` more times on `time`: it has looked again, at least `n - 1` times. */
const lookedAgain = async (time: ReturnType<typeof testClock>, n = 3) => {
  const from = time.naps();
  await until(() => time.naps() >= from + n);
};

const { place, open, cluster } = leadDatabases();

/** A queue on `db` (a process's own connection to `where`, unless given), started; closed when the test ends. */
async function queueAt(where: Place, options: Partial<QueueOptions> & Pick<QueueOptions, "transport">, db: Db = open(where)) {
  const queue = createLeadQueue({ ...defaults, log: quietLog, db, ...fast, ...options });
  onTestFinished(() => queue.close(AbortSignal.abort()));
  await queue.start();
  return queue;
}
/** The store as another process (the operator's command) sees it. */
const reader = (where: Place) => leadStore(open(where));

describe("the lead queue", () => {
  it("stores a lead before answering, then delivers it once, retrying on the schedule after failures", async () => {
    const where = await place("sqlite");
    const { transport, attempts } = scripted(failed, failed, taken);
    const retries: number[] = [];
    const queue = await queueAt(where, { transport, backoff: (n) => (retries.push(n), 50) });
    const { id } = await queue.accept(lead);
    expect((await reader(where).list(["pending", "delivered"])).map((r) => r.id)).toEqual([id]);
    expect(queue.stats()).toMatchObject({ store: "sqlite", failing: false, parked: 0, held: 0 });
    await until(() => attempts.length === 3);
    await reports(queue, { pending: 0 });
    expect(attempts.map((a) => a.id)).toEqual([id, id, id]);
    expect(retries).toEqual([1, 2]);
    expect(await reader(where).get(id)).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("a transport that throws has failed that attempt: retried, not the end of the process", async () => {
    const where = await place("sqlite");
    const { transport, attempts } = scripted(taken);
    let calls = 0;
    const throwsFirst: Transport = { name: "fake", deliver: (l) => (calls++ ? transport.deliver(l) : Promise.reject(new TypeError("a bug"))) };
    const queue = await queueAt(where, { transport: throwsFirst });
    const { id } = await queue.accept(lead);
    await until(() => attempts.length === 1);
    await reports(queue, { pending: 0 });
    expect(calls).toBe(2);
    expect(await reader(where).get(id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("the same form posted again answers the same id and is delivered once", async () => {
    const { transport, attempts } = scripted(taken);
    const time = testClock();
    const queue = await queueAt(await place("sqlite"), { transport, clock: time.clock });
    const answers = await Promise.all([queue.accept(lead), queue.accept({ ...lead }), queue.accept(lead)]);
    expect(new Set(answers.map(({ id }) => id)).size).toBe(1);
    expect(answers.filter(({ first }) => first)).toHaveLength(1);
    await until(() => attempts.length === 1);
    await reports(queue, { pending: 0 });
    expect(await queue.accept(lead)).toEqual({ id: answers[0]!.id, first: false });
    time.advance(defaults.leaseMs); // past any claim and retry
    await lookedAgain(time);
    expect(attempts).toHaveLength(1);
  });

  it("parks a lead still failing once 7 days have passed and 7 days of waits were scheduled, not after a clock jump alone", async () => {
    const time = testClock();
    const where = await place("sqlite");
    const { transport, attempts } = scripted(failed);
    const queue = await queueAt(where, { transport, clock: time.clock });
    const { id } = await queue.accept(lead);
    await until(() => attempts.length === 1);
    time.advance(8 * 86_400_000); // the clock jumps 8 days forward
    await until(() => attempts.length === 2);
    await reports(queue, { pending: 1, parked: 0 });
    await queue.close();
    // Waits that add up to the window (stored with the lead): parked at the next failure.
    const store = reader(where);
    const now = time.clock.now();
    expect((await store.claimDue(now + 10_000, 1, 1)).map((r) => r.id)).toEqual([id]);
    await store.retryLater(id, now - RETRY_WINDOW_MS, RETRY_WINDOW_MS);
    await reports(await queueAt(where, { transport, clock: time.clock }), { parked: 1 });
    expect(await store.get(id)).toMatchObject({ status: "parked", parkedReason: "expired" });
  });

  it("past LEADS_PER_HOUR leads are held, each counted and the operator told once; they go out on their own, oldest first, once the last hour has room for them, at the ceiling's pace", async () => {
    const { log, lines, count } = recordingLog();
    const held: string[] = [];
    const events: LeadEvents = { accepted: () => undefined, attempted: () => undefined, held: (kind) => void held.push(kind) };
    const time = testClock();
    const { transport, attempts } = scripted(taken);
    const queue = await queueAt(await place("sqlite"), { transport, log, events, perHour: 2, clock: time.clock });
    // A millisecond apart: two leads of one millisecond are in no order (then by their random ids).
    for (const text of ["a", "b", "c", "d"]) await queue.accept(another(text)).then(() => time.advance(1));
    await until(() => attempts.length === 2);
    await reports(queue, { pending: 0, held: 2 });
    expect([held, count("leads_held")]).toEqual([["contact", "contact"], 1]);
    time.advance(3_600_000); // a and b are an hour old
    await until(() => attempts.length === 3);
    await lookedAgain(time);
    expect(attempts.map((a) => a.text)).toEqual(["a", "b", "c"]);
    await reports(queue, { held: 1 });
    time.advance(1_800_000); // an hour / LEADS_PER_HOUR later
    await until(() => attempts.length === 4);
    expect(attempts[3]!.text).toBe("d");
    expect(lines.filter((l) => l.event === "lead_released").map((l) => l.id)).toEqual(attempts.slice(2).map((a) => a.id));
  });

  it("with every delivery slot busy and more leads due, the loop waits for a slot instead of looking again at once", async () => {
    const { transport, attempts, answer } = waiting();
    const time = testClock();
    const where = await place("sqlite");
    // Each look reads the counts once: counted on the queue's own connection.
    const db = open(where);
    let looks = 0;
    const counted: Db = { ...db, all: (sql, params) => (sql.includes("GROUP BY status") && looks++, db.all(sql, params)) };
    const queue = await queueAt(where, { transport, concurrency: 1, clock: time.clock }, counted);
    await queue.accept(another("first"));
    await queue.accept(another("second"));
    await until(() => attempts.length === 1);
    const [from, looked] = [time.sleeps().length, looks];
    await lookedAgain(time, 10);
    const sleeps = time.sleeps().slice(from);
    expect(sleeps, "each sleep of the loop meanwhile is a whole look interval").toEqual(sleeps.map(() => fast.pollMs));
    expect(looks - looked, "looks at the store in ten sleeps of the loop (500 ms)").toBeLessThan(20);
    answer(0, taken);
    await until(() => attempts.length === 2); // the second one has started
    await reports(queue, { pending: 1 });
    answer(1, taken);
    await reports(queue, { pending: 0 });
  });

  it("the stop cuts an attempt short once its time is up: written down as stopped, its claim let go, sent again by the next start", async () => {
    const where = await place("sqlite");
    const { log, lines } = recordingLog();
    const { transport, attempts } = waiting();
    const queue = await queueAt(where, { transport, log });
    const { id } = await queue.accept(lead);
    await until(() => attempts.length === 1);
    const cut = new AbortController();
    let closed = false;
    const closing = queue.close(cut.signal).then(() => (closed = true));
    await sleep(100);
    expect(closed, "close waits for the attempt until the cut").toBe(false);
    cut.abort();
    await closing;
    expect(attempts[0]!.stop?.aborted).toBe(true);
    expect(lines.filter((l) => l.event === "lead_delivery_failed")).toEqual([expect.objectContaining({ id, reason: "stopped" })]);
    const row = { status: "pending", attempts: 1, claimed_by: null };
    expect(await open(where).get("SELECT status, attempts, claimed_by FROM leads WHERE id = ?", [id])).toEqual(row);
    const { transport: next, attempts: sentAgain } = scripted(taken);
    await queueAt(where, { transport: next });
    await until(() => sentAgain.length === 1);
    expect(sentAgain[0]!.id).toBe(id);
  });

  it("an unreadable lead whose park the store refused is not said to be parked", async () => {
    const where = await place("sqlite");
    const db = open(where);
    const full = Object.assign(new Error("database or disk is full"), { errcode: 13, errstr: "database or disk is full" });
    let parks = 0;
    const refusesParks: Db = { ...db, run: (sql, params) => (/status = 'parked'/.test(sql) ? (parks++, Promise.reject(full)) : db.run(sql, params)) };
    // Stored, then its text damaged, before the queue starts.
    await prepareStore(db);
    const id = "20261122-UNREADBL";
    await leadStore(db).insert(lead, { id, key: "k", now: Date.now(), perHour: 60 });
    await db.run("UPDATE leads SET payload = 'not JSON' WHERE id = ?", [id]);
    const { log, count } = recordingLog();
    const { transport, attempts } = scripted(taken);
    await queueAt(where, { transport, log }, refusesParks);
    await until(() => parks > 0);
    await sleep(100); // what the queue says of the refused park, it says within a few ticks
    expect([count("lead_parked"), count("lead_store_write_failed")]).toEqual([0, 1]);
    expect((await reader(where).get(id))?.status).toBe("pending");
    expect(attempts.map((l) => l.text)).not.toContain(lead.text);
  });
});

describe("on SQLite", () => {
  /** Another process (so its lock goes when it says, whatever this one's event loop does) that runs `script` on the database (argv[1]). */
  const other = (where: Place, script: string) => {
    const opening = `const db = new (require("node:sqlite").DatabaseSync)(process.argv[1], { timeout: 5000 });`;
    const child = spawn(process.execPath, ["-e", `${opening}\n${script}`, where.file], { stdio: ["ignore", "pipe", "inherit"] });
    onTestFinished(() => void child.kill("SIGKILL"));
    return { child, exited: once(child, "exit") };
  };

  it("another process holding the write lock for a moment (a second server on the folder) is waited for, not reported as a failing store", async () => {
    const where = await place("sqlite");
    const { log, lines } = recordingLog();
    const { transport, attempts } = scripted(failed);
    const queue = await queueAt(where, { transport, log });
    await queue.accept(lead);
    await until(() => attempts.length >= 2);
    // A second server on the folder: three writes that each hold the lock while its disk syncs (0.6 s), then 0.1 s free.
    const pause = "const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);";
    const { child, exited } = other(where, `${pause}\nfor (let i = 0; i < 3; i++) { db.exec("BEGIN IMMEDIATE"); pause(600); db.exec("COMMIT"); pause(100); }`);
    const failing: boolean[] = [];
    while (child.exitCode === null) {
      failing.push(queue.stats().failing);
      await Promise.race([exited, sleep(20)]);
    }
    expect(child.exitCode).toBe(0);
    expect(failing.filter(Boolean), "the store is reported failing while the other process holds its lock").toEqual([]);
    const seen = attempts.length;
    await until(() => attempts.length > seen + 1);
    expect(lines.filter((l) => String(l.event).startsWith("lead_store_")).map((l) => l.event)).toEqual([]);
  });

  it("leads posted while another process holds the write lock wait for it, and are stored once the lock goes (the event loop meanwhile: stop-sqlite-locked.spec)", async () => {
    const where = await place("sqlite");
    const queue = await queueAt(where, { transport: scripted(taken).transport });
    const { child, exited } = other(where, `db.exec("BEGIN IMMEDIATE"); process.stdout.write("locked\\n"); setTimeout(() => db.exec("COMMIT"), 2000);`);
    await new Promise((resolve) => child.stdout.once("data", resolve));
    const accepting = Promise.all([queue.accept(another("first visitor")), queue.accept(another("second visitor"))]);
    const early = await Promise.race([accepting.then(() => "stored"), sleep(1_000, "waiting")]);
    expect(early, "a second into the lock, the leads are still waiting for it").toBe("waiting");
    const stored = await accepting;
    expect(stored.map((s) => s.first)).toEqual([true, true]);
    expect(await exited, "the other process committed").toEqual([0, null]);
    const store = reader(where);
    expect(await Promise.all(stored.map(async ({ id }) => (await store.get(id))?.lead?.text))).toEqual(["first visitor", "second visitor"]);
  });
});

describe.each(ENGINES)("a lead the service confirmed whose outcome could not be written (%s)", (engine) => {
  it("is written once the store takes writes again, within its claim, and never sent again: the store held past every wait (SQLite: another process's lock; PostgreSQL: paused)", async () => {
    const where = await place(engine);
    const { log, lines, count } = recordingLog();
    let blocked: "no" | "yes" | "over" = "no";
    let letGo = () => undefined as void;
    const attempts: StoredLead[] = [];
    const transport: Transport = {
      name: "fake",
      async deliver(l) {
        attempts.push(l);
        // The service has it; then the store stops taking writes past every wait (as a full disk does).
        if (blocked === "no") {
          if (engine === "sqlite") {
            const other = new DatabaseSync(where.file);
            other.exec("BEGIN EXCLUSIVE");
            letGo = () => (other.exec("COMMIT"), other.close());
          } else {
            await cluster().pause();
            letGo = () => cluster().resume();
          }
          blocked = "yes";
        }
        return taken;
      },
    };
    onTestFinished(() => (blocked === "yes" ? letGo() : undefined));
    const time = testClock();
    // A claim longer than the test: the outcome is written while it holds, not once another process could send the lead again.
    const queue = await queueAt(where, { transport, log, leaseMs: 60_000, clock: time.clock });
    const { id } = await queue.accept(lead);
    await until(() => blocked === "yes");
    // Held past the outcome's every wait (SQLite: 3 s for the lock; PostgreSQL: the query's 3 s), so it fails.
    await until(() => storeFailed(lines).length > 0, 15_000);
    expect(queue.stats()).toMatchObject({ failing: true });
    letGo();
    blocked = "over";
    const store = reader(where);
    await until(async () => passing(time, (await store.get(id).catch(() => undefined))?.status === "delivered"));
    await lookedAgain(time);
    expect(attempts).toHaveLength(1);
    await reports(queue, { failing: false });
    expect(count("lead_store_recovered")).toBe(1);
  });
});

describe.each(ENGINES)("an outcome is written under its claim, a confirmation whoever learns it (%s)", (engine) => {
  /** A's send in flight when its short claim runs out (paused: SIGSTOP), B claims and sends too; then each is answered, `first` first. */
  async function twoSenders(answers: { a: DeliveryOutcome; b: DeliveryOutcome; first: "a" | "b" }) {
    const where = await place(engine);
    const [a, b] = [waiting(), waiting()];
    const [logA, logB] = [recordingLog(), recordingLog()];
    // Once its send is out, A's loop claims nothing more (paused); the send's answer comes when it resumes.
    const dbA = open(where);
    let paused = false;
    const pausable: Db = { ...dbA, transaction: (work, options) => (paused ? new Promise(() => undefined) : dbA.transaction(work, options)) };
    const queueA = await queueAt(where, { transport: a.transport, log: logA.log, leaseMs: 300 }, pausable);
    const { id } = await queueA.accept(lead);
    await until(() => a.attempts.length === 1);
    paused = true;
    await queueAt(where, { transport: b.transport, log: logB.log });
    await until(() => b.attempts.length === 1);
    const answer = async (who: "a" | "b") => {
      (who === "a" ? a : b).answer(0, answers[who]);
      const lines = (who === "a" ? logA : logB).lines;
      await until(() => lines.some((l) => l.id === id && ["lead_delivered", "lead_parked", "lead_outcome_late"].includes(String(l.event))));
    };
    await answer(answers.first);
    await answer(answers.first === "a" ? "b" : "a");
    const events = (lines: Record<string, unknown>[]) => lines.filter((l) => l.id === id && l.event !== "lead_stored").map((l) => l.event);
    return { row: await reader(where).get(id), a: events(logA.lines), b: events(logB.lines) };
  }
  const conflict: DeliveryOutcome = { ok: false, retry: false, reason: "http", status: 409 };

  it("a failure past the claim (A refused, late) parks nothing: B's delivery stands", async () => {
    const { row, a, b } = await twoSenders({ a: refused, b: taken, first: "a" });
    expect(row).toMatchObject({ status: "delivered" });
    expect([a, b]).toEqual([["lead_outcome_late"], ["lead_delivered"]]);
  });

  it("a confirmation past the claim (A taken, late) makes the lead delivered, though B parked it meanwhile; B's later failure parks nothing", async () => {
    const parkedFirst = await twoSenders({ a: taken, b: conflict, first: "b" });
    expect(parkedFirst.row).toMatchObject({ status: "delivered", parkedReason: null });
    expect([parkedFirst.a, parkedFirst.b]).toEqual([["lead_delivered"], ["lead_parked"]]);
    const confirmedFirst = await twoSenders({ a: taken, b: conflict, first: "a" });
    expect(confirmedFirst.row).toMatchObject({ status: "delivered" });
    expect([confirmedFirst.a, confirmedFirst.b]).toEqual([["lead_delivered"], ["lead_outcome_late"]]);
  });
});

describe("on PostgreSQL", () => {
  it("two containers share the hour's ceiling: a lead over it is held whichever container took it, and each held lead goes out once", async () => {
    const where = await place("postgres");
    const time = testClock();
    const { transport, attempts } = scripted(taken);
    const options = { transport, perHour: 2, clock: time.clock };
    const [a, b] = [await queueAt(where, options), await queueAt(where, options)];
    const admitted = [await a.accept(another("a")), await b.accept(another("b"))];
    await until(() => attempts.length === 2);
    const held = [await a.accept(another("c")), await b.accept(another("d"))];
    await Promise.all([reports(a, { held: 2 }), reports(b, { held: 2 })]);
    // A look meeting the other's release lock past lock_timeout waits as a failed look does (faults.ts): seconds, loaded.
    time.advance(3_600_000);
    await until(() => attempts.length === 3, 30_000);
    await lookedAgain(time);
    expect(attempts).toHaveLength(3);
    time.advance(1_800_000);
    await until(() => attempts.length === 4, 30_000);
    await lookedAgain(time);
    // The two let through in whichever order their containers sent them; the held ones after, oldest first.
    expect(new Set(attempts.slice(0, 2).map((l) => l.id))).toEqual(new Set(admitted.map((l) => l.id)));
    expect(attempts.slice(2).map((l) => l.id)).toEqual(held.map((l) => l.id));
  }, 90_000);

  it("a store that cannot be reached stops the start (StoreUnusable), takes no lead, and is reported failing", async () => {
    const db = open({ file: "/nonexistent", databaseUrl: "postgres://postgres@127.0.0.1:1/leads" });
    const queue = createLeadQueue({ ...defaults, db, transport: scripted(taken).transport, log: quietLog });
    await expect(queue.start()).rejects.toBeInstanceOf(StoreUnusable);
    await expect(queue.accept(lead)).rejects.toThrow(/not open/);
    expect(queue.stats()).toMatchObject({ failing: true });
  });
});

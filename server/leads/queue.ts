/**
 * The lead pipeline (decision 0046): a lead is stored before its visitor is thanked; a loop claims the due leads, sends each and writes the outcome into its
 * row (delivered, retried, parked). It looks every few seconds too, so what another process changed needs no signal.
 */
import { setTimeout as pause } from "node:timers/promises";
import { causeOf, type Db, StoreUnusable } from "../db";
import type { Logger } from "../log";
import { systemClock, type Clock } from "./clock";
import { storeFaults } from "./faults";
import { expired, leadKey, newLeadId, retryDelay } from "./schedule";
import { unanswered } from "./send";
import { AddressFull, leadStore, prepareStore, type LeadRow } from "./store";
import type { DeliveryOutcome, Lead, LeadEvents, LeadStats, Transport } from "./types";

export interface QueueOptions {
  db: Db;
  transport: Transport;
  log: Logger;
  events?: LeadEvents;
  /** How long a delivered lead's text is kept (0: erased at delivery). */
  retentionMs: number;
  /** Past this many leads let through in the last hour, new ones are held (stored, not yet delivered). */
  perHour: number;
  /** How long a claimed delivery is this process's: longer than one attempt can take. */
  leaseMs: number;
  clock?: Clock;
  concurrency?: number;
  /** The wait before retry `n` (1 after the first failure): the schedule's, unless a test shortens it. */
  backoff?: (n: number) => number;
  /** How often the loop looks for what another process or the operator changed. */
  pollMs?: number;
}

const PURGE_MS = 60_000;
const noEvents: LeadEvents = { accepted: () => undefined, attempted: () => undefined, held: () => undefined };

/** Resolves once `signal` aborts; never without one. */
const whenAborted = (signal?: AbortSignal) =>
  new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener("abort", () => resolve(), { once: true })));

type Verdict = { result: "delivered" } | { result: "retried" } | { result: "parked"; reason: string };

/** What an attempt's outcome means: delivered; parked when refused for good or its retry window is over (schedule.ts); else tried again. */
function verdictOf(outcome: DeliveryOutcome, row: Pick<LeadRow, "firstAcceptedAt" | "retryMs">, now: number): Verdict {
  if (outcome.ok) return { result: "delivered" };
  if (!outcome.retry) return { result: "parked", reason: outcome.reason };
  return expired(row.firstAcceptedAt, row.retryMs, now) ? { result: "parked", reason: "expired" } : { result: "retried" };
}

export function createLeadQueue(options: QueueOptions) {
  const { db, transport, log, retentionMs, perHour, leaseMs } = options;
  const { events = noEvents, clock = systemClock, concurrency = 4, backoff = (n: number) => retryDelay(n), pollMs = 2_000 } = options;
  const store = leadStore(db);
  const faults = storeFaults(log, clock.now);
  let [opened, stopped, lastPurge] = [false, false, -Infinity];
  let counts: (Awaited<ReturnType<typeof store.stats>> & { at: number }) | undefined;
  const count = async () => void (counts = { ...(await store.stats(clock.now())), at: clock.now() });
  let cancelWait = () => undefined as void;
  const inFlight = new Map<string, Promise<void>>();
  /** Aborted when close() has waited for the attempts in flight long enough: they end at once. */
  const cutShort = new AbortController();
  /**
   * Confirmed leads whose outcome the store refused: written at the next look that finds it working, never sent again by this process (another that takes one
   * once its claim runs out sends it again, with the same reference).
   */
  const confirmed = new Map<string, { row: LeadRow; record?: string }>();

  /** Sleeps until the next lead is due (or its claim runs out), or the next look: whichever is first. */
  async function sleep() {
    cancelWait();
    if (stopped) return;
    // Confirmations to write look every second, whatever the fault's wait: before their claims run out.
    let wait = Math.min(faults.wait(pollMs), confirmed.size > 0 ? 1_000 : Infinity);
    // With every slot busy, a finished attempt wakes the loop.
    if (!faults.failing && inFlight.size < concurrency) {
      const due = await store.nextDueAt(clock.now()).catch(() => undefined);
      if (due !== undefined) wait = Math.min(wait, due - clock.now());
    }
    if (stopped) return;
    cancelWait();
    cancelWait = clock.after(wait, () => void look());
  }

  /** The look in progress, if any: close waits for it. Asked for meanwhile, one more follows it. */
  let looking: Promise<void> | undefined;
  let lookAgain = false;
  async function look(): Promise<void> {
    if (stopped) return;
    if (looking) return void (lookAgain = true);
    looking = lookOnce();
    await looking;
    looking = undefined;
    if (lookAgain) {
      lookAgain = false;
      return look();
    }
    await sleep();
  }

  async function lookOnce() {
    try {
      const now = clock.now();
      if (faults.failing) await store.probe();
      if (now - lastPurge >= PURGE_MS || now < lastPurge) {
        const purged = await store.purge(now, retentionMs);
        lastPurge = now;
        if (purged) log.info({ rows: purged }, "leads_purged");
      }
      const released = await store.releaseHeld(clock.now(), perHour);
      if (released) log.info(released, "lead_released");
      const due = await store.claimDue(clock.now(), concurrency - inFlight.size, leaseMs);
      await count();
      faults.cleared();
      // Stopping since: close lets these claims go, another start sends them.
      if (stopped) return;
      for (const row of [...[...confirmed.values()].map((c) => c.row), ...due]) {
        if (inFlight.has(row.id)) continue;
        const done = deliver(row).finally(() => {
          inFlight.delete(row.id);
          void sleep();
        });
        inFlight.set(row.id, done);
      }
    } catch (error) {
      faults.lookFailed(error);
    }
  }

  /**
   * Writes an outcome: `late` when no row took it (the lead another's claim now, or delivered, or erased: store.ts, UNDER_MY_CLAIM), said so and never as
   * done; `failed` when the store failed: the claim runs out and the lead is tried again (at least once, never zero).
   */
  async function write(outcome: () => Promise<number>, said: Record<string, unknown>, result: string): Promise<"written" | "late" | "failed"> {
    try {
      if ((await outcome()) > 0) return "written";
      log.warn({ ...said, outcome: result }, "lead_outcome_late");
      return "late";
    } catch (error) {
      faults.failed(error, "write", said);
      return "failed";
    }
  }

  async function deliver(row: LeadRow) {
    const fields = { id: row.id, kind: row.kind, provider: transport.name, attempt: row.attempts + 1 };
    if (!row.lead) {
      // Its text could not be read back: kept, parked, for the operator.
      if ((await write(() => store.park(row.id, clock.now(), "unreadable"), fields, "parked")) === "written")
        log.error({ ...fields, reason: "unreadable" }, "lead_parked");
      return;
    }
    const started = clock.now();
    // Confirmed before, its outcome not written (the store failing): written now, never sent again.
    const known = confirmed.get(row.id);
    const attempt = known ? Promise.resolve<DeliveryOutcome>({ ok: true, record: known.record }) : transport.deliver(row.lead, cutShort.signal);
    // A transport that throws (an address or header Node refuses, a bug) has failed this attempt: never the process.
    const outcome = await attempt.catch((error: unknown) => unanswered({ kind: "error", error }));
    const durationMs = clock.now() - started;
    const verdict = verdictOf(outcome, row, clock.now());
    const delay = verdict.result === "retried" ? backoff(row.attempts + 1) : undefined;
    const said = { ...fields, durationMs, status: outcome.status };
    // A confirmation the store could not take is written at a later look (confirmed, above).
    if (outcome.ok) confirmed.set(row.id, { row, record: outcome.record });
    const result = await write(
      outcome.ok
        ? () => store.delivered(row.id, clock.now(), retentionMs, outcome.record)
        : verdict.result === "parked"
          ? () => store.park(row.id, clock.now(), verdict.reason, outcome.status)
          : () => store.retryLater(row.id, clock.now(), delay!),
      said,
      verdict.result,
    );
    if (result !== "failed") confirmed.delete(row.id);
    if (result !== "written") return;
    // Said once it is written down: its metric, the counts again, and one log line without the lead's text.
    events.attempted(row.kind, verdict.result, durationMs / 1000);
    void count().catch(() => undefined);
    if (outcome.ok) log.info({ ...said, record: outcome.record }, "lead_delivered");
    else if (verdict.result === "parked") log.error({ ...said, reason: verdict.reason }, "lead_parked");
    else log.warn({ ...said, reason: outcome.reason, cause: outcome.cause, retryInSeconds: Math.round((delay ?? 0) / 1000) }, "lead_delivery_failed");
  }

  return {
    /** Brings the store to its schema (throws StoreUnusable if it cannot be used) and starts delivering what was pending. */
    async start() {
      try {
        await prepareStore(db);
        await count();
      } catch (error) {
        throw error instanceof StoreUnusable ? error : new StoreUnusable(db.where, causeOf(error).cause ?? String(error));
      }
      await db.checkpoint();
      opened = true;
      void look();
    },

    /**
     * Stores the lead before its visitor is thanked: its id, or the first one's (`first: false`)
     * when the same form was stored already. `group`: its address's code (decision 0031); `device`: its browser's class. Rejects
     * with AddressFull when its address has as many leads held as it may; otherwise, the store failed.
     */
    async accept(lead: Lead, { group, device }: { group?: string; device?: string } = {}): Promise<{ id: string; first: boolean }> {
      if (!opened) throw new Error("the lead store is not open");
      const now = clock.now();
      let result;
      try {
        result = await store.insert(lead, { id: newLeadId(now), key: leadKey(lead), now, perHour, group, device });
        faults.cleared();
      } catch (error) {
        if (error instanceof AddressFull) throw error;
        faults.failed(error, "write"); // the loop waits, and tries a write now and then, until one goes through
        throw Object.assign(new Error("the lead store cannot be written"), causeOf(error));
      }
      if (result.duplicate) {
        log.info({ id: result.id, kind: lead.kind }, "lead_duplicate");
        return { id: result.id, first: false };
      }
      log.info({ id: result.id, kind: lead.kind, held: result.held || undefined, heldFor: result.heldFor }, "lead_stored");
      events.accepted(lead.kind);
      if (result.held) {
        events.held(lead.kind);
        if (result.firstHeld) log.error({ perHour, heldFor: result.heldFor, command: "npm run -s leads -- release" }, "leads_held");
      } else void look();
      void count().catch(() => undefined);
      return { id: result.id, first: true };
    },

    /** What /metrics reports: the counts as last read (each look, each lead), so a scrape never waits on the store. */
    stats(): LeadStats {
      const last = counts ?? { pending: 0, held: 0, heldFor: {}, heldAddresses: 0, parked: 0, oldestPendingSeconds: null, at: clock.now() };
      const since = Math.max(0, Math.round((clock.now() - last.at) / 1000));
      return {
        store: db.engine,
        failing: !opened || faults.failing,
        pending: last.pending,
        held: last.held,
        heldFor: last.heldFor,
        heldAddresses: last.heldAddresses,
        parked: last.parked,
        oldestPendingSeconds: last.oldestPendingSeconds === null ? null : last.oldestPendingSeconds + since,
      };
    },

    /**
     * Stops delivering, waits for attempts in flight (those still waiting for an answer when `cut`
     * aborts end at once: outcome `stopped`), writes their outcomes and lets its claims go. The
     * database stays open: its owner (server/index.ts) closes it once every store is done with it.
     */
    async close(cut?: AbortSignal) {
      stopped = true;
      cancelWait();
      // The look in progress too, until the cut: one stuck on a database that does not answer
      // (paused) fails by itself within its queries' limits, and what it claims runs out.
      await Promise.race([Promise.all([looking, ...inFlight.values()]), whenAborted(cut)]);
      cutShort.abort();
      await Promise.all(inFlight.values());
      // Not tried on a store failing (an outcome just failed), and a second at most: the claims run out by themselves.
      if (!faults.failing) await Promise.race([store.releaseClaims().catch(() => undefined), pause(1_000, undefined, { ref: false })]);
    },
  };
}

/**
 * What happens to a lead in either queue, written once: it is accepted into the local record
 * (the SQLite store, which without REDIS_URL is the queue itself), what a delivery attempt's
 * outcome means, the record's upkeep (retention) and the counts stats() reports. sqlite-queue.ts
 * and redis-queue.ts add only what differs: where a lead waits, and who sends it.
 */
import type { Logger } from "../log";
import { systemClock, type Clock } from "./clock";
import { storeFaults } from "./faults";
import { expired, retryDelay } from "./schedule";
import { retryWhileBusy, sqliteCause } from "./database";
import { AddressFull, openStore, type InsertResult, type LeadStore } from "./store";
import type { Accepted, DeliveryOutcome, Lead, LeadEvents, LeadStats, StoredLead, Transport } from "./types";

export interface QueueOptions {
  /** The SQLite database, e.g. data/leads.db. */
  dbFile: string;
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
  /** How often the queue looks for what another process or the operator changed (the database; with Redis, leads kept locally). */
  pollMs?: number;
}

const noLeadEvents: LeadEvents = { accepted: () => undefined, attempted: () => undefined, held: () => undefined };

/** The options with what a caller may leave out filled in. */
export function withDefaults<Options extends QueueOptions>(options: Options) {
  return {
    ...options,
    events: options.events ?? noLeadEvents,
    clock: options.clock ?? systemClock,
    concurrency: options.concurrency ?? 4,
    backoff: options.backoff ?? ((n: number) => retryDelay(n)),
    pollMs: options.pollMs ?? 2_000,
  };
}
type Settings = ReturnType<typeof withDefaults<QueueOptions>>;

/**
 * A look waits up to 2 s for another process's write lock (without blocking: retryWhileBusy), so
 * a second server's writes back to back, each slow on a busy disk, are not a fault; held longer, it is.
 */
export const LOOK_WAIT_MS = 2_000;
const PURGE_MS = 60_000;

/**
 * The local record both queues keep: opened at start, its faults (faults.ts), its upkeep on each
 * look, and what accept writes to it and logs.
 */
export function localRecord({ dbFile, log, events, clock, retentionMs, perHour }: Settings) {
  const faults = storeFaults(log, clock.now);
  let store: LeadStore | undefined;
  let lastPurge = 0;

  function countsNow() {
    try {
      if (store) return store.stats(clock.now());
    } catch {
      // unreadable for now (a fault, or another process's recovery of the file: stats() answers at
      // once and cannot wait): zeros, and failing says the rest
    }
    return { pending: 0, held: 0, parked: 0, oldestPendingSeconds: null };
  }

  return {
    faults,
    /** The store while it is open. */
    get store() {
      return store;
    },
    /**
     * Opens the store (throws StoreUnusable if it cannot be read: the records must be there). A
     * new file or an older schema is written to, so another process's write is waited for.
     */
    async open() {
      store = await retryWhileBusy(() => openStore(dbFile, clock));
      store.checkpoint();
    },
    /** The open store, for accept: before start there is none. */
    opened(): LeadStore {
      if (!store) throw new Error("the lead store is not open");
      return store;
    },
    /** At a stop: what another process's lock refuses now is not waited for (the claims run out by themselves). */
    close() {
      try {
        store?.releaseClaims();
        store?.checkpoint();
      } catch {
        // a full disk, or the lock held: the claims run out by themselves
      }
      store?.close();
      store = undefined;
    },

    /** Stores a lead, before the visitor is thanked; a failure is the store's fault, AddressFull the visitor's answer. */
    async insert(lead: Lead, row: { id: string; key: string; now: number; perHour: number; group?: string }): Promise<InsertResult> {
      const open = this.opened();
      try {
        const result = await retryWhileBusy(() => open.insert(lead, row));
        faults.cleared();
        return result;
      } catch (error) {
        if (error instanceof AddressFull) throw error;
        faults.failed(error, "write"); // the loop waits, and tries a write now and then, until one goes through
        throw Object.assign(new Error("the lead store cannot be written"), sqliteCause(error));
      }
    },
    /** The same form again: the first one's id. */
    duplicate(id: string, kind: Lead["kind"]): Accepted {
      log.info({ id, kind }, "lead_duplicate");
      return { id, first: false };
    },
    /** A new lead stored (`store`: where it waits); a held one is reported to the operator, once an episode. */
    stored(lead: Lead, result: InsertResult, where: "sqlite" | "redis", level: "info" | "warn" = "info"): Accepted {
      log[level]({ id: result.id, kind: lead.kind, store: where, held: result.held || undefined, heldFor: result.heldFor }, "lead_stored");
      events.accepted(lead.kind);
      if (result.held) {
        events.held(lead.kind);
        if (result.firstHeld) log.error({ perHour, heldFor: result.heldFor, command: "npm run leads -- release" }, "leads_held");
      }
      return { id: result.id, first: true };
    },

    /**
     * Each look's care of the record: while it is failing, a probe (another server on the folder
     * holding the write lock a moment is waited for, not a fault); once a minute, retention's purge.
     */
    async upkeep(open: LeadStore) {
      const now = clock.now();
      if (faults.failing) await retryWhileBusy(() => open.probe(), LOOK_WAIT_MS);
      if (now - lastPurge < PURGE_MS && now >= lastPurge) return;
      const purged = await retryWhileBusy(() => open.purge(now, retentionMs), LOOK_WAIT_MS);
      lastPurge = now;
      if (purged) log.info({ rows: purged }, "leads_purged");
    },
    /** The record's own ceiling lets a held lead go (with Redis: while Redis is away). */
    async releaseHeld(open: LeadStore) {
      const released = await retryWhileBusy(() => open.releaseHeld(clock.now(), perHour), LOOK_WAIT_MS);
      if (released) log.info(released, "lead_released");
    },
    /** A lead whose text could not be read back is kept, parked, for the operator. */
    async parkUnreadable(open: LeadStore, id: string, kind: Lead["kind"]) {
      await retryWhileBusy(() => open.park(id, clock.now(), "unreadable"));
      log.error({ id, kind, reason: "unreadable" }, "lead_parked");
    },

    /** What stats() reports: the record's counts; with Redis, what its queue holds added (`queued`). */
    stats(queued?: { pending: number; parked: number; oldestAt: number; redis: "ready" | "down" }): LeadStats {
      const counts = countsNow();
      const now = clock.now();
      const oldestHere = counts.oldestPendingSeconds === null ? Infinity : now - counts.oldestPendingSeconds * 1000;
      const oldest = Math.min(oldestHere, queued?.oldestAt ?? Infinity);
      return {
        store: queued ? "redis" : "sqlite",
        writable: store !== undefined && !faults.failing,
        failing: store === undefined || faults.failing,
        pending: counts.pending + (queued?.pending ?? 0),
        held: counts.held,
        // With Redis the record parks only what it cannot read; Redis's failed jobs are the parked leads.
        parked: queued ? queued.parked : counts.parked,
        oldestPendingSeconds: Number.isFinite(oldest) ? Math.max(0, Math.round((now - oldest) / 1000)) : null,
        ...(queued ? { redis: queued.redis } : {}),
      };
    },
  };
}

type Verdict = { result: "delivered" } | { result: "retried" } | { result: "parked"; reason: string };

/**
 * What one attempt's outcome means: delivered; parked when the service refused the lead for good
 * or its retry window is over (schedule.ts, expired: `since` and the waits scheduled); else tried again.
 */
export function verdictOf(outcome: DeliveryOutcome, window: { since: number; retryMs: number }, now: number): Verdict {
  if (outcome.ok) return { result: "delivered" };
  if (!outcome.retry) return { result: "parked", reason: outcome.reason };
  return expired(window.since, window.retryMs, now) ? { result: "parked", reason: "expired" } : { result: "retried" };
}

/** Resolves once `signal` aborts; never without one. */
export const whenAborted = (signal?: AbortSignal) =>
  new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener("abort", () => resolve(), { once: true })));

/**
 * One delivery attempt, timed; `known`: the outcome this process already has (confirmed before),
 * sent not again; `stop`: the queue's stop (Transport.deliver).
 */
export async function attempt(transport: Transport, lead: StoredLead, n: number, clock: Clock, known?: DeliveryOutcome, stop?: AbortSignal) {
  const started = clock.now();
  const outcome = known ?? (await transport.deliver(lead, stop));
  const fields = { id: lead.id, kind: lead.kind, provider: transport.name, attempt: n, durationMs: clock.now() - started };
  return { outcome, fields };
}

/** Says what an attempt came to, once it is written down: its metric, and one log line without the lead's text. */
export function reportAttempt(
  { log, events }: Pick<Settings, "log" | "events">,
  verdict: Verdict,
  outcome: DeliveryOutcome,
  fields: Awaited<ReturnType<typeof attempt>>["fields"],
  retryInMs?: number,
) {
  events.attempted(fields.kind, verdict.result, fields.durationMs / 1000);
  const { status } = outcome;
  if (outcome.ok) log.info({ ...fields, status, record: outcome.record }, "lead_delivered");
  else if (verdict.result === "parked") log.error({ ...fields, reason: verdict.reason, status }, "lead_parked");
  else {
    const retryInSeconds = retryInMs === undefined ? undefined : Math.round(retryInMs / 1000);
    log.warn({ ...fields, reason: outcome.reason, status, cause: outcome.cause, retryInSeconds }, "lead_delivery_failed");
  }
}

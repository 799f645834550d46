/**
 * The embedded queue (no REDIS_URL): leads wait in the SQLite store and a loop delivers them, a
 * few at a time, retrying on the schedule until the service confirms or refuses for good (parked).
 * The loop looks at the database every few seconds too, so what another process or the operator's
 * command changed is picked up without any signal between them.
 */
import type { Logger } from "../log";
import { storeFaults } from "./faults";
import { expired, leadKey, newLeadId, retryDelay } from "./schedule";
import { AddressFull, openStore, sqliteCause, whenFree, type InsertResult, type LeadRow, type LeadStore } from "./store";
import { type DeliveryOutcome, noLeadEvents, type Lead, type LeadEvents, type LeadOrigin, type LeadQueue, type Transport } from "./types";

export interface QueueOptions {
  /** The SQLite database, e.g. data/leads.db. */
  dbFile: string;
  transport: Transport;
  log: Logger;
  events?: LeadEvents;
  /** How long a delivered lead's text is kept (0: erased at delivery). */
  retentionMs?: number;
  /** Past this many leads let through in the last hour, new ones are held (stored, not yet delivered). */
  perHour?: number;
  /** How long a claimed delivery is this process's: longer than one attempt can take. */
  leaseMs?: number;
  now?: () => number;
  random?: () => number;
  concurrency?: number;
  /** The wait before retry `n` (1 after the first failure): the schedule's, drawn with `random`, unless a test shortens it. */
  backoff?: (n: number) => number;
  /** How often the queue looks for what another process or the operator changed (the database; with Redis, leads kept locally). */
  pollMs?: number;
}

const PURGE_MS = 60_000;
/** A look waits about a second for another process's write lock (each try blocks up to 250 ms); held longer, it is a fault. */
export const LOOK_TRIES = 4;

/** Reports the first hold of an episode once: a log line the operator sees (and a metric while any is held). */
export function reportHeld(log: Logger, events: LeadEvents, kind: Lead["kind"], result: InsertResult, perHour: number) {
  events.held?.(kind);
  if (result.firstHeld) log.error({ perHour, heldFor: result.heldFor, command: "npm run leads -- release" }, "leads_held");
}

/**
 * Each look's care of the local store, for both queues: while it is failing, a probe (another
 * server on the folder holding the write lock a moment is waited for, not a fault); once a
 * minute, retention's purge.
 */
export function storeUpkeep(log: Logger, now: () => number, retentionMs: number, faults: { failing: boolean }) {
  let lastPurge = 0;
  return async (store: LeadStore) => {
    if (faults.failing) await whenFree(() => store.probe(), LOOK_TRIES);
    if (now() - lastPurge < PURGE_MS && now() >= lastPurge) return;
    const purged = await whenFree(() => store.purge(now(), retentionMs), LOOK_TRIES);
    lastPurge = now();
    if (purged) log.info({ rows: purged }, "leads_purged");
  };
}

export function createSqliteQueue({
  dbFile,
  transport,
  log,
  events = noLeadEvents,
  retentionMs = 30 * 86_400_000,
  perHour = 60,
  leaseMs = 40_000,
  now = Date.now,
  random = Math.random,
  concurrency = 4,
  backoff = (n) => retryDelay(n, random),
  pollMs = 2_000,
}: QueueOptions): LeadQueue & { store(): LeadStore | undefined } {
  let store: LeadStore | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const faults = storeFaults(log, now);
  const upkeep = storeUpkeep(log, now, retentionMs, faults);
  const inFlight = new Map<string, Promise<void>>();

  function wake() {
    clearTimeout(timer);
    if (stopped || !store) return;
    let wait = faults.wait(pollMs);
    // With every slot busy, a finished attempt wakes the loop.
    if (!faults.failing && inFlight.size < concurrency) {
      try {
        const due = store.nextDueAt(now());
        if (due !== null) wait = Math.min(wait, due - now());
      } catch {
        // the next run says what went wrong
      }
    }
    timer = setTimeout(() => void run(), Math.max(0, wait));
    timer.unref();
  }

  let looking = false;
  let lookAgain = false;
  /**
   * Leads the service confirmed whose note could not be written (a full disk): when the claim runs
   * out, this process writes the note again instead of sending them again. A process killed
   * meanwhile, or another on the same folder, still sends them again (decision 0033).
   */
  const confirmed = new Map<string, string | undefined>();

  async function run() {
    if (stopped || !store) return;
    // One look at a time (a look may wait for another server's write lock); asked meanwhile, one more after it.
    if (looking) return void (lookAgain = true);
    looking = true;
    const open = store;
    try {
      await upkeep(open);
      const released = await whenFree(() => open.releaseHeld(now(), perHour), LOOK_TRIES);
      if (released) log.info(released, "lead_released");
      for (const row of await whenFree(() => open.claimDue(now, concurrency - inFlight.size, leaseMs), LOOK_TRIES)) {
        if (inFlight.has(row.id)) continue;
        inFlight.set(
          row.id,
          attempt(open, row).finally(() => (inFlight.delete(row.id), wake())),
        );
      }
      faults.cleared();
    } catch (error) {
      faults.lookFailed(error);
    } finally {
      looking = false;
    }
    if (lookAgain) {
      lookAgain = false;
      return run();
    }
    wake();
  }

  async function attempt(store: LeadStore, row: LeadRow) {
    if (!row.lead) {
      // Its text could not be read back: keep it, parked, for the operator.
      return void (
        await whenFree(() => store.park(row.id, now(), "unreadable")).catch(() => undefined),
        log.error({ id: row.id, kind: row.kind, reason: "unreadable" }, "lead_parked")
      );
    }
    const started = now();
    // Confirmed before, its note not written (a full disk): written now, never sent again.
    const outcome: DeliveryOutcome = confirmed.has(row.id) ? { ok: true, record: confirmed.get(row.id) } : await transport.deliver(row.lead);
    const fields = { id: row.id, kind: row.kind, provider: transport.name, attempt: row.attempts + 1, durationMs: now() - started };
    try {
      if (outcome.ok) {
        confirmed.set(row.id, outcome.record);
        await whenFree(() => store.delivered(row.id, now(), retentionMs, outcome.record));
        confirmed.delete(row.id);
        events.attempted(row.kind, "delivered", fields.durationMs / 1000);
        log.info({ ...fields, status: outcome.status, record: outcome.record }, "lead_delivered");
      } else if (!outcome.retry || expired(row.firstAcceptedAt, row.retryMs, now())) {
        const reason = outcome.retry ? "expired" : outcome.reason;
        await whenFree(() => store.park(row.id, now(), reason, outcome.status));
        events.attempted(row.kind, "parked", fields.durationMs / 1000);
        log.error({ ...fields, reason, status: outcome.status }, "lead_parked");
      } else {
        const delay = backoff(row.attempts + 1);
        await whenFree(() => store.retryLater(row.id, now(), delay));
        events.attempted(row.kind, "retried", fields.durationMs / 1000);
        log.warn(
          { ...fields, reason: outcome.reason, status: outcome.status, cause: outcome.cause, retryInSeconds: Math.round(delay / 1000) },
          "lead_delivery_failed",
        );
      }
    } catch (error) {
      // The outcome could not be written down: the claim runs out and the lead is tried again
      // (at least once, never zero).
      faults.failed(error, "write", { id: row.id });
    }
  }

  return {
    store: () => store,
    /** Opens the store (throws StoreUnusable if it cannot be read) and starts delivering. */
    async start() {
      store = openStore(dbFile);
      store.checkpoint();
      void run();
    },
    async accept(lead: Lead, { group }: LeadOrigin = {}) {
      if (!store) throw new Error("the lead store is not open");
      const open = store;
      try {
        const result = await whenFree(() => open.insert(lead, { id: newLeadId(now()), key: leadKey(lead), now: now(), perHour, group }));
        faults.cleared();
        if (result.duplicate) return (log.info({ id: result.id, kind: lead.kind }, "lead_duplicate"), { id: result.id, first: false });
        log.info({ id: result.id, kind: lead.kind, store: "sqlite", held: result.held || undefined, heldFor: result.heldFor }, "lead_stored");
        events.accepted(lead.kind);
        if (result.held) reportHeld(log, events, lead.kind, result, perHour);
        else void run();
        return { id: result.id, first: true };
      } catch (error) {
        if (error instanceof AddressFull) throw error; // an answer for the visitor, not a fault of the store
        faults.failed(error, "write"); // the loop waits, and tries a write now and then, until one goes through
        throw Object.assign(new Error("the lead store cannot be written"), sqliteCause(error));
      }
    },
    stats() {
      let counts: { pending: number; held: number; parked: number; oldestPendingSeconds: number | null } = {
        pending: 0,
        held: 0,
        parked: 0,
        oldestPendingSeconds: null,
      };
      try {
        if (store) counts = store.stats(now());
      } catch {
        // unreadable for now: zeros, and failing says the rest
      }
      return {
        store: "sqlite" as const,
        writable: store !== undefined && !faults.failing,
        failing: store === undefined || faults.failing,
        pending: counts.pending,
        held: counts.held,
        parked: counts.parked,
        oldestPendingSeconds: counts.oldestPendingSeconds,
      };
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(inFlight.values());
      try {
        store?.releaseClaims();
        store?.checkpoint();
      } catch {
        // a full disk: the claims run out by themselves
      }
      store?.close();
      store = undefined;
    },
  };
}

/**
 * The embedded queue (no REDIS_URL): leads wait in the SQLite store and a loop delivers them, a
 * few at a time, retrying on the schedule until the service confirms or refuses for good (parked).
 * The loop looks at the database every few seconds too, so what another process or the operator's
 * command changed is picked up without any signal between them.
 */
import { attempt, localRecord, LOOK_WAIT_MS, reportAttempt, whenAborted, withDefaults, verdictOf, type QueueOptions } from "./pipeline";
import { leadKey, newLeadId } from "./schedule";
import { retryWhileBusy } from "./database";
import type { LeadRow, LeadStore } from "./store";
import type { DeliveryOutcome, Lead, LeadOrigin, LeadQueue } from "./types";

export function createSqliteQueue(options: QueueOptions): LeadQueue & { store(): LeadStore | undefined } {
  const settings = withDefaults(options);
  const { transport, clock, retentionMs, perHour, leaseMs, concurrency, backoff, pollMs } = settings;
  const record = localRecord(settings);
  const { faults } = record;
  let stopped = false;
  let cancelWait = () => undefined as void;
  const inFlight = new Map<string, Promise<void>>();
  /** Aborted when close() has waited for the attempts in flight long enough: they end at once. */
  const cutShort = new AbortController();

  /** Sleeps until the next lead is due (or its claim runs out), or the next look: whichever is first. */
  function sleep() {
    cancelWait();
    const store = record.store;
    if (stopped || !store) return;
    let wait = faults.wait(pollMs);
    // With every slot busy, a finished attempt wakes the loop.
    if (!faults.failing && inFlight.size < concurrency) {
      try {
        const due = store.nextDueAt(clock.now());
        if (due !== null) wait = Math.min(wait, due - clock.now());
      } catch {
        // the next look says what went wrong (or reads it, past another process's lock)
      }
    }
    cancelWait = clock.after(wait, () => void look());
  }

  /** The look in progress, if any: close waits for it, so it never meets a closed store. */
  let looking: Promise<void> | undefined;
  let lookAgain = false;
  /**
   * Leads the service confirmed whose note could not be written (a full disk): when the claim runs
   * out, this process writes the note again instead of sending them again. A process killed
   * meanwhile, or another on the same folder, still sends them again (decision 0033).
   */
  const confirmed = new Map<string, string | undefined>();

  async function look(): Promise<void> {
    if (stopped || !record.store) return;
    // One look at a time (a look may wait for another server's write lock); asked meanwhile, one more after it.
    if (looking) {
      lookAgain = true;
      return;
    }
    looking = lookOnce(record.store);
    await looking;
    looking = undefined;
    if (lookAgain) {
      lookAgain = false;
      return look();
    }
    sleep();
  }

  async function lookOnce(store: LeadStore) {
    try {
      await record.upkeep(store);
      await record.releaseHeld(store);
      const due = await retryWhileBusy(() => store.claimDue(clock.now, concurrency - inFlight.size, leaseMs), LOOK_WAIT_MS);
      // Stopping since (the claim waited for a lock): close lets these claims go, another start sends them.
      if (stopped) return;
      for (const row of due) {
        if (inFlight.has(row.id)) continue;
        const done = deliver(store, row).finally(() => {
          inFlight.delete(row.id);
          sleep();
        });
        inFlight.set(row.id, done);
      }
      faults.cleared();
    } catch (error) {
      faults.lookFailed(error);
    }
  }

  async function deliver(store: LeadStore, row: LeadRow) {
    if (!row.lead) return record.parkUnreadable(store, row.id, row.kind).catch(() => undefined);
    // Confirmed before, its note not written (a full disk): written now, never sent again.
    const known: DeliveryOutcome | undefined = confirmed.has(row.id) ? { ok: true, record: confirmed.get(row.id) } : undefined;
    const { outcome, fields } = await attempt(transport, row.lead, row.attempts + 1, clock, known, cutShort.signal);
    const verdict = verdictOf(outcome, { since: row.firstAcceptedAt, retryMs: row.retryMs }, clock.now());
    const delay = verdict.result === "retried" ? backoff(row.attempts + 1) : undefined;
    try {
      if (outcome.ok) {
        confirmed.set(row.id, outcome.record);
        await retryWhileBusy(() => store.delivered(row.id, clock.now(), retentionMs, outcome.record));
        confirmed.delete(row.id);
      } else if (verdict.result === "parked") {
        await retryWhileBusy(() => store.park(row.id, clock.now(), verdict.reason, outcome.status));
      } else if (delay !== undefined) {
        await retryWhileBusy(() => store.retryLater(row.id, clock.now(), delay));
      }
      reportAttempt(settings, verdict, outcome, fields, delay); // once it is written down
    } catch (error) {
      // The outcome could not be written down: the claim runs out and the lead is tried again
      // (at least once, never zero).
      faults.failed(error, "write", { id: row.id });
    }
  }

  return {
    store: () => record.store,
    /** Opens the store (throws StoreUnusable if it cannot be read) and starts delivering. */
    async start() {
      await record.open();
      void look();
    },
    async accept(lead: Lead, { group }: LeadOrigin = {}) {
      const result = await record.insert(lead, { id: newLeadId(clock.now()), key: leadKey(lead), now: clock.now(), perHour, group });
      if (result.duplicate) return record.duplicate(result.id, lead.kind);
      const accepted = record.stored(lead, result, "sqlite");
      if (!result.held) void look();
      return accepted;
    },
    stats: () => record.stats(),
    async close(cut?: AbortSignal) {
      stopped = true;
      cancelWait();
      // A look, or an outcome, waiting for another process's lock ends within its bound (retryWhileBusy).
      await looking;
      await Promise.race([Promise.all(inFlight.values()), whenAborted(cut)]);
      cutShort.abort();
      // Each attempt's outcome is written down before the store closes; one cut short is retried as a timeout is.
      await Promise.all(inFlight.values());
      record.close();
    },
  };
}

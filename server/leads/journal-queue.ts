/**
 * The embedded queue (no REDIS_URL): leads wait in the journal and one loop delivers them, a few at
 * a time, retrying on the schedule until the service confirms or refuses for good (parked).
 */
import type { Logger } from "../log";
import { openJournal, takeRequeueRequests, type Journal } from "./journal";
import { expired, newLeadId, retryDelay } from "./schedule";
import { noLeadEvents, type Lead, type LeadEvents, type LeadQueue, type StoredLead, type Transport } from "./types";

export interface QueueOptions {
  journalFile: string;
  transport: Transport;
  log: Logger;
  events?: LeadEvents;
  now?: () => number;
  random?: () => number;
  concurrency?: number;
  lockWaitMs?: number;
}

export function createJournalQueue({ journalFile, transport, log, events = noLeadEvents, now = Date.now, random = Math.random, concurrency = 4, lockWaitMs }: QueueOptions): LeadQueue & { journal(): Journal | undefined } {
  let journal: Journal | undefined;
  let opening: Promise<Journal | undefined> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = new Map<string, { attempts: number; nextAt: number }>();
  const inFlight = new Map<string, Promise<void>>();

  /** The journal, opened on first need and again after a failure (e.g. the disk came back). */
  function ready(): Promise<Journal | undefined> {
    opening ??= openJournal(journalFile, log, { lockWaitMs }).then(
      (opened) => (journal = opened),
      (error: unknown) => {
        opening = undefined;
        if ((error as { code?: string }).code !== "ELOCKED") return void log.error({ err: error, file: journalFile }, "lead_store_unwritable");
        throw new Error(`Another server process uses the lead journal ${journalFile}; give each its own LEADS_FILE, or set REDIS_URL to run several.`);
      },
    );
    return opening;
  }

  function wake() {
    clearTimeout(timer);
    if (stopped || !journal) return;
    const due = [...schedule.values()].map((s) => s.nextAt);
    const wait = Math.min(5_000, ...due.map((at) => at - now())); // every 5 s: operator requests
    timer = setTimeout(() => void run(), Math.max(0, wait));
    timer.unref();
  }

  async function run() {
    if (stopped || !journal) return;
    for (const id of await takeRequeueRequests(journalFile)) {
      for (const lead of journal.state.parked.values()) if (id === "*" || id === lead.id) await journal.append({ t: "requeue", id: lead.id, at: now() });
    }
    for (const id of journal.state.pending.keys()) if (!schedule.has(id)) schedule.set(id, { attempts: 0, nextAt: now() });
    for (const [id, { nextAt }] of schedule) {
      if (inFlight.size >= concurrency) break;
      if (nextAt > now() || inFlight.has(id)) continue;
      inFlight.set(id, attempt(journal, id).finally(() => (inFlight.delete(id), wake())));
    }
    wake();
  }

  async function attempt(journal: Journal, id: string) {
    const lead = journal.state.pending.get(id);
    const entry = schedule.get(id);
    if (!lead || !entry) return void schedule.delete(id);
    const started = now();
    const outcome = await transport.deliver(lead);
    entry.attempts += 1;
    const fields = { id, kind: lead.kind, provider: transport.name, attempt: entry.attempts, durationMs: now() - started };
    try {
      if (outcome.ok) {
        await journal.append({ t: "done", id, at: now() });
        schedule.delete(id);
        events.attempted(lead.kind, "delivered", fields.durationMs / 1000);
        log.info({ ...fields, status: outcome.status }, "lead_delivered");
      } else if (!outcome.retry || expired(lead.since, now())) {
        const reason = outcome.retry ? "expired" : outcome.reason;
        await journal.append({ t: "park", id, at: now(), reason, status: outcome.status });
        schedule.delete(id);
        events.attempted(lead.kind, "parked", fields.durationMs / 1000);
        log.error({ ...fields, reason, status: outcome.status }, "lead_parked");
      } else {
        const delay = retryDelay(entry.attempts, random);
        entry.nextAt = now() + delay;
        events.attempted(lead.kind, "retried", fields.durationMs / 1000);
        log.warn({ ...fields, reason: outcome.reason, status: outcome.status, cause: outcome.cause, retryInSeconds: Math.round(delay / 1000) }, "lead_delivery_failed");
      }
    } catch (error) {
      // The outcome could not be written down: try again later (at least once, never zero).
      entry.nextAt = now() + retryDelay(entry.attempts, random);
      log.error({ err: error, id }, "lead_journal_write_failed");
    }
  }

  return {
    journal: () => journal,
    async start() {
      if (await ready()) void run();
    },
    async accept(lead: Lead) {
      const open = await ready();
      if (!open) throw new Error("the lead store cannot be written");
      const stored: StoredLead = { ...lead, id: newLeadId(now()), acceptedAt: now() };
      await open.append({ t: "lead", ...stored });
      log.info({ id: stored.id, kind: lead.kind, store: "journal" }, "lead_stored");
      events.accepted(lead.kind);
      schedule.set(stored.id, { attempts: 0, nextAt: now() });
      void run();
      return stored.id;
    },
    stats() {
      const pending = [...(journal?.state.pending.values() ?? [])];
      const oldest = Math.min(...pending.map((lead) => lead.acceptedAt));
      return {
        store: "journal",
        writable: journal !== undefined,
        pending: pending.length,
        parked: journal?.state.parked.size ?? 0,
        oldestPendingSeconds: pending.length ? Math.round((now() - oldest) / 1000) : null,
      };
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(inFlight.values());
      await journal?.close();
      journal = undefined;
    },
  };
}

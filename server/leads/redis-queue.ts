/**
 * With REDIS_URL, leads wait in Redis (BullMQ), so any container delivers any lead and a container
 * that dies loses none: another picks its leads up once their lock runs out. A lead that arrives
 * while Redis cannot take it goes to the local journal and is handed to Redis when it is back.
 */
import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../log";
import { openJournal, type Journal } from "./journal";
import type { QueueOptions } from "./journal-queue";
import { expired, newLeadId, retryDelay } from "./schedule";
import { noLeadEvents, type Lead, type LeadQueue, type StoredLead } from "./types";

export const QUEUE = { name: "leads", prefix: "agency-site" };
/** A re-queued lead gets a fresh retry window from `since`. */
export type QueuedLead = StoredLead & { since?: number };

const JOB = { attempts: 1_000_000, backoff: { type: "schedule" }, removeOnComplete: { age: 24 * 3600 }, removeOnFail: false };

/** ioredis logs every failed reconnect unless someone listens: log changes of state instead. */
function watch(connection: Redis, log: Logger, name: string) {
  let up = false;
  connection.on("ready", () => ((up = true), log.info({ connection: name }, "lead_queue_redis_ready")));
  connection.on("error", (error: Error) => {
    if (up) log.warn({ err: error, connection: name }, "lead_queue_redis_down");
    up = false;
  });
  return connection;
}

export function createRedisQueue({ redisUrl, journalFile, transport, log, events = noLeadEvents, now = Date.now, random = Math.random, concurrency = 4 }: QueueOptions & { redisUrl: string }): LeadQueue {
  const producer = watch(new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 }), log, "producer");
  const queue = new Queue<QueuedLead>(QUEUE.name, { connection: producer, prefix: QUEUE.prefix, defaultJobOptions: JOB });
  queue.on("error", () => undefined); // the connection's own listener reports it
  let worker: Worker<QueuedLead> | undefined;
  let connection: Redis | undefined;
  let local: Journal | undefined;
  let snapshot = { pending: 0, parked: 0, oldest: Infinity };
  const timers: NodeJS.Timeout[] = [];

  async function deliver(job: Job<QueuedLead>) {
    const lead = job.data;
    const started = now();
    const outcome = await transport.deliver(lead);
    const fields = { id: lead.id, kind: lead.kind, provider: transport.name, attempt: job.attemptsMade + 1, durationMs: now() - started };
    if (outcome.ok) return void (events.attempted(lead.kind, "delivered", fields.durationMs / 1000), log.info({ ...fields, status: outcome.status }, "lead_delivered"));
    if (!outcome.retry || expired(lead.since ?? lead.acceptedAt, now())) {
      const reason = outcome.retry ? "expired" : outcome.reason;
      events.attempted(lead.kind, "parked", fields.durationMs / 1000);
      log.error({ ...fields, reason, status: outcome.status }, "lead_parked");
      throw new UnrecoverableError(reason);
    }
    events.attempted(lead.kind, "retried", fields.durationMs / 1000);
    log.warn({ ...fields, reason: outcome.reason, status: outcome.status, cause: outcome.cause }, "lead_delivery_failed");
    throw new Error(outcome.reason);
  }

  /** Leads the local journal kept while Redis was away, added with their own id (so once). */
  async function handOver() {
    if (!local || producer.status !== "ready") return;
    for (const { since: _since, ...lead } of local.state.pending.values()) {
      await queue.add("lead", lead, { jobId: lead.id });
      await local.append({ t: "done", id: lead.id, at: now() });
      log.info({ id: lead.id, kind: lead.kind }, "lead_handed_to_redis");
    }
  }

  async function refresh() {
    const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized", "failed");
    const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"], 0, 999);
    snapshot = { pending: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0), parked: counts.failed ?? 0, oldest: Math.min(...jobs.map((j) => j.data.acceptedAt)) };
  }

  const every = (ms: number, task: () => Promise<void>) => {
    const timer = setInterval(() => void task().catch(() => undefined), ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    async start() {
      local = await openJournal(journalFile, log).catch((error: unknown) => void log.error({ err: error, file: journalFile }, "lead_store_unwritable"));
      connection = watch(new Redis(redisUrl, { maxRetriesPerRequest: null }), log, "worker");
      worker = new Worker<QueuedLead>(QUEUE.name, deliver, {
        connection,
        prefix: QUEUE.prefix,
        concurrency,
        lockDuration: 15_000,
        stalledInterval: 15_000,
        settings: { backoffStrategy: (attemptsMade) => retryDelay(attemptsMade, random) },
      });
      worker.on("error", () => undefined); // reported by the connection's listener
      every(2_000, handOver);
      every(5_000, refresh);
      void refresh().catch(() => undefined);
    },
    async accept(lead: Lead) {
      const stored: StoredLead = { ...lead, id: newLeadId(now()), acceptedAt: now() };
      try {
        let timer: NodeJS.Timeout | undefined;
        const slow = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), 1_500)));
        await Promise.race([queue.add("lead", stored, { jobId: stored.id }), slow]).finally(() => clearTimeout(timer));
        log.info({ id: stored.id, kind: lead.kind, store: "redis" }, "lead_stored");
      } catch (error) {
        if (!local) throw error;
        await local.append({ t: "lead", ...stored });
        log.warn({ id: stored.id, kind: lead.kind, store: "journal", err: error }, "lead_stored");
      }
      events.accepted(lead.kind);
      return stored.id;
    },
    stats() {
      const waiting = [...(local?.state.pending.values() ?? [])];
      const oldest = Math.min(snapshot.oldest, ...waiting.map((l) => l.acceptedAt));
      const ready = producer.status === "ready";
      return {
        store: "redis",
        writable: ready || local !== undefined,
        pending: snapshot.pending + waiting.length,
        parked: snapshot.parked,
        oldestPendingSeconds: Number.isFinite(oldest) ? Math.round((now() - oldest) / 1000) : null,
        redis: ready ? "ready" : "down",
      };
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      await worker?.close();
      await queue.close();
      await local?.close();
      connection?.disconnect();
      producer.disconnect();
    },
  };
}

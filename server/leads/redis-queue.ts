/**
 * With REDIS_URL, leads wait in Redis (BullMQ), so any container delivers any lead and a container
 * that dies loses none: another picks its leads up once their lock runs out (within ~10 s). A lead
 * that arrives while Redis cannot take it goes to the local SQLite store and is handed to Redis
 * when it is back.
 * The job id is the lead's dedupe key, so the same form posted twice is one job, and the hourly
 * ceiling is one counter in Redis for every container; a lead over it is held in the local store.
 */
import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../log";
import { watchRedis } from "../redis-watch";
import { expired, leadKey, newLeadId, retryDelay } from "./schedule";
import { reportHeld, type QueueOptions } from "./sqlite-queue";
import { openStore, sqliteCause, whenFree, type LeadStore } from "./store";
import { noLeadEvents, type Lead, type LeadQueue, type StoredLead } from "./types";

export const QUEUE = { name: "leads", prefix: "agency-site" };
/** A re-queued lead gets a fresh retry window from `since`. */
export type QueuedLead = StoredLead & { since?: number };

/** The lead queue's two connections, each logged by name as it comes and goes. */
const watch = (connection: Redis, log: Logger, name: string) => watchRedis(connection, log, { event: "lead_queue_redis", fields: { connection: name } });

/**
 * BullMQ writes a few warnings with console.warn/error (the eviction policy on every connection,
 * an old Redis version): plain text in a JSON log. Ours says the eviction policy once, as JSON;
 * anything else a library prints this way becomes a `library_warning` line.
 */
function keepLogJson(log: Logger) {
  const toLog =
    (level: "warn" | "error") =>
    (...args: unknown[]) => {
      const note = args.map(String).join(" ").replace(/\s+/g, " ").slice(0, 300);
      if (!/Eviction policy is/.test(note)) log[level]({ note }, "library_warning");
    };
  console.warn = toLog("warn");
  console.error = toLog("error");
}

async function checkEviction(producer: Redis, log: Logger) {
  const info = await producer.info("memory");
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy && policy !== "noeviction") log.warn({ policy, expected: "noeviction" }, "redis_eviction_policy");
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), ms)));
  return Promise.race([work, slow]).finally(() => clearTimeout(timer));
}

export interface RedisQueueOptions extends QueueOptions {
  redisUrl: string;
  /** How often the counts that stats() reports are read from Redis. */
  refreshMs?: number;
}

export function createRedisQueue(options: RedisQueueOptions): LeadQueue {
  const {
    redisUrl,
    dbFile,
    transport,
    log,
    events = noLeadEvents,
    retentionMs = 30 * 86_400_000,
    perHour = 60,
    now = Date.now,
    random = Math.random,
    concurrency = 4,
  } = options;
  const { backoff = (n: number) => retryDelay(n, random), pollMs = 2_000, refreshMs = 5_000 } = options;
  keepLogJson(log);
  const producer = watch(new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 }), log, "producer");
  producer.once("ready", () => void checkEviction(producer, log).catch(() => undefined));
  // Delivered jobs stay a day (the dedupe window), or not at all with LEAD_RETENTION_DAYS=0.
  const job = {
    attempts: 1_000_000,
    backoff: { type: "schedule" },
    removeOnComplete: retentionMs === 0 ? true : { age: Math.min(retentionMs, 86_400_000) / 1000 },
    removeOnFail: false,
  };
  const queue = new Queue<QueuedLead>(QUEUE.name, { connection: producer, prefix: QUEUE.prefix, defaultJobOptions: job });
  queue.on("error", () => undefined); // the connection's own listener reports it
  let worker: Worker<QueuedLead> | undefined;
  let connection: Redis | undefined;
  let local: LeadStore | undefined;
  let snapshot = { pending: 0, parked: 0, oldest: Infinity };
  let writable = true;
  const timers: NodeJS.Timeout[] = [];

  async function deliver(job: Job<QueuedLead>) {
    const lead = job.data;
    const started = now();
    const outcome = await transport.deliver(lead);
    const fields = { id: lead.id, kind: lead.kind, provider: transport.name, attempt: job.attemptsMade + 1, durationMs: now() - started };
    if (outcome.ok)
      return void (events.attempted(lead.kind, "delivered", fields.durationMs / 1000), log.info({ ...fields, status: outcome.status }, "lead_delivered"));
    // The waits BullMQ scheduled so far (their mean), so a clock jump cannot shorten the window.
    const waited = Array.from({ length: job.attemptsMade + 1 }, (_, n) => retryDelay(n + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    if (!outcome.retry || expired(lead.since ?? lead.acceptedAt, waited, now())) {
      const reason = outcome.retry ? "expired" : outcome.reason;
      events.attempted(lead.kind, "parked", fields.durationMs / 1000);
      log.error({ ...fields, reason, status: outcome.status }, "lead_parked");
      throw new UnrecoverableError(reason);
    }
    events.attempted(lead.kind, "retried", fields.durationMs / 1000);
    log.warn({ ...fields, reason: outcome.reason, status: outcome.status, cause: outcome.cause }, "lead_delivery_failed");
    throw new Error(outcome.reason);
  }

  /** Adds a lead as the job named by its key; resolves with the id of the lead Redis now has. */
  async function add(lead: StoredLead, key: string): Promise<string> {
    await queue.add("lead", lead, { jobId: key });
    return (await queue.getJob(key))?.data.id ?? lead.id;
  }

  /** Leads the local store kept while Redis was away, with their first acceptance time. */
  async function handOver() {
    if (!local || producer.status !== "ready") return;
    for (const row of local.list(["pending"])) {
      if (!row.lead) continue;
      const first = await add(row.lead, row.key ?? row.id);
      await whenFree(() => local!.handed(row.id, now()));
      log.info({ id: row.id, kind: row.kind, duplicateOf: first === row.id ? undefined : first }, "lead_handed_to_redis");
    }
  }

  async function refresh() {
    const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized", "failed");
    const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"], 0, 999);
    snapshot = {
      pending: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0),
      parked: counts.failed ?? 0,
      oldest: Math.min(...jobs.map((j) => j.data.acceptedAt)),
    };
    local?.purge(now(), retentionMs);
  }

  const every = (ms: number, task: () => Promise<void>) => {
    const timer = setInterval(() => void task().catch(() => undefined), ms);
    timer.unref();
    timers.push(timer);
  };

  /** Into the local store: Redis is away (`perHour` as configured), or the lead is held (0). */
  async function keepLocally(lead: Lead, id: string, key: string, limit: number) {
    const result = await whenFree(() => local!.insert(lead, { id, key, now: now(), perHour: limit }));
    if (result.duplicate) return result.id;
    log.warn({ id: result.id, kind: lead.kind, store: "sqlite", held: result.held || undefined }, "lead_stored");
    events.accepted(lead.kind);
    if (result.held) reportHeld(log, events, lead.kind, result.firstHeld, perHour);
    return result.id;
  }

  return {
    async start() {
      local = openStore(dbFile); // throws StoreUnusable: the fallback must be there too
      local.checkpoint();
      connection = watch(new Redis(redisUrl, { maxRetriesPerRequest: null }), log, "worker");
      worker = new Worker<QueuedLead>(QUEUE.name, deliver, {
        connection,
        prefix: QUEUE.prefix,
        concurrency,
        // A delivery's lock is renewed every 2.5 s while it runs, however long FORM_TIMEOUT_MS lets
        // it take; a killed container's lock lapses within 5 s and the next 5 s stalled check
        // hands the lead on: ~10 s at most (decision 0018). Stalling, however often, never parks.
        lockDuration: 5_000,
        stalledInterval: 5_000,
        maxStalledCount: 1_000_000,
        settings: { backoffStrategy: backoff },
      });
      worker.on("error", () => undefined); // reported by the connection's listener
      every(pollMs, handOver);
      every(refreshMs, refresh);
      void refresh().catch(() => undefined);
    },
    async accept(lead: Lead) {
      const stored: StoredLead = { ...lead, id: newLeadId(now()), acceptedAt: now() };
      const key = leadKey(lead);
      let taken: { first: string } | { hold: true };
      try {
        taken = await within(
          1_500,
          (async () => {
            const seen = await queue.getJob(key);
            if (seen) return { first: seen.data.id };
            const hour = `${QUEUE.prefix}:leads-hour:${Math.floor(now() / 3_600_000)}`;
            const [[, count]] = (await producer.multi().incr(hour).pexpire(hour, 7_200_000).exec()) as [[unknown, number]];
            if (count > perHour) return { hold: true as const };
            return { first: await add(stored, key) };
          })(),
        );
      } catch (error) {
        if (!local) throw error;
        log.warn({ err: error }, "lead_queue_redis_unavailable");
        try {
          return await keepLocally(lead, stored.id, key, perHour);
        } catch (failed) {
          writable = false;
          throw Object.assign(new Error("the lead store cannot be written"), sqliteCause(failed));
        }
      }
      if ("hold" in taken) return keepLocally(lead, stored.id, key, 0);
      if (taken.first !== stored.id) return (log.info({ id: taken.first, kind: lead.kind }, "lead_duplicate"), taken.first);
      writable = true;
      log.info({ id: stored.id, kind: lead.kind, store: "redis" }, "lead_stored");
      events.accepted(lead.kind);
      return stored.id;
    },
    stats() {
      let counts = { pending: 0, held: 0, oldestPendingSeconds: null as number | null };
      try {
        if (local) counts = local.stats(now());
      } catch {
        // unreadable for now
      }
      const oldestLocal = counts.oldestPendingSeconds === null ? Infinity : now() - counts.oldestPendingSeconds * 1000;
      const oldest = Math.min(snapshot.oldest, oldestLocal);
      const ready = producer.status === "ready";
      return {
        store: "redis" as const,
        writable: ready || (local !== undefined && writable),
        pending: snapshot.pending + counts.pending,
        held: counts.held,
        parked: snapshot.parked,
        oldestPendingSeconds: Number.isFinite(oldest) ? Math.max(0, Math.round((now() - oldest) / 1000)) : null,
        redis: ready ? ("ready" as const) : ("down" as const),
      };
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      await worker?.close();
      await queue.close();
      local?.checkpoint();
      local?.close();
      connection?.disconnect();
      producer.disconnect();
    },
  };
}

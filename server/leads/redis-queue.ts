/**
 * With REDIS_URL, leads wait in Redis (BullMQ), so any container delivers any lead and a container
 * that dies loses none: another picks its leads up once their lock runs out (within ~10 s). Redis
 * is the queue, not the record (decision 0023): each lead is first stored in the SQLite store of
 * the container that took it and kept there, with its text, until its delivery is confirmed, and
 * that container queues again whatever Redis no longer has (restarted empty, flushed, failed
 * over). A lead that arrives while Redis cannot take it waits there until Redis is back.
 * The job id is the lead's dedupe key, so the same form posted twice is one job, and the hourly
 * ceiling is one count in Redis for every container; a lead over it is held in the local store.
 */
import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../log";
import { QUIT_WAIT_MS, queueConnection, watchRedis, workerConnection } from "../redis";
import { attempt, localRecord, LOOK_WAIT_MS, reportAttempt, whenAborted, withDefaults, verdictOf, type QueueOptions } from "./pipeline";
import { checkRedis, QUEUE, sharedInRedis, type QueuedLead } from "./redis-shared";
import { leadKey, newLeadId, retryDelay } from "./schedule";
import { retryWhileBusy, sqliteCause } from "./database";
import type { InsertResult, LeadStore } from "./store";
import type { Lead, LeadOrigin, LeadQueue, StoredLead } from "./types";

/** The lead queue's two connections, each logged by name as it comes and goes. */
const watch = (connection: Redis, log: Logger, name: string) => watchRedis(connection, log, { event: "lead_queue_redis", fields: { connection: name } });

/** `work`, or a rejection once `ms` have passed without its answer. */
function timeLimit<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), ms);
  });
  return Promise.race([work, slow]).finally(() => clearTimeout(timer));
}

export interface RedisQueueOptions extends QueueOptions {
  redisUrl: string;
  /** How often the counts that stats() reports are read from Redis. */
  refreshMs?: number;
}

export function createRedisQueue(options: RedisQueueOptions): LeadQueue {
  const settings = withDefaults(options);
  const { redisUrl, transport, log, clock, retentionMs, perHour, leaseMs, concurrency, backoff, pollMs, refreshMs = 5_000 } = settings;
  const record = localRecord(settings);
  const { faults } = record;
  const producer = watch(queueConnection(redisUrl), log, "producer");
  // Awaited at close, so a stop right after start does not cut the check off mid-way.
  let checked: Promise<void> = Promise.resolve();
  producer.once("ready", () => {
    checked = checkRedis(producer, log).catch(() => undefined);
  });
  // Delivered jobs stay a day (the dedupe window), or not at all with LEAD_RETENTION_DAYS=0.
  const job = {
    attempts: 1_000_000,
    backoff: { type: "schedule" },
    removeOnComplete: retentionMs === 0 ? true : { age: Math.min(retentionMs, 86_400_000) / 1000 },
    removeOnFail: false,
  };
  // checkRedis says what BullMQ's own check would print as plain text (skipVersionCheck). BullMQ
  // then takes this Redis for its oldest (5.0): a worker rounds its idle wait up to whole seconds.
  const queue = new Queue<QueuedLead>(QUEUE.name, { connection: producer, prefix: QUEUE.prefix, defaultJobOptions: job, skipVersionCheck: true });
  queue.on("error", () => undefined); // the connection's own listener reports it
  const shared = sharedInRedis(producer, queue, clock, perHour);
  let worker: Worker<QueuedLead> | undefined;
  let connection: Redis | undefined;
  let inRedis = { pending: 0, parked: 0, oldestAt: Infinity };
  let stopped = false;
  let cancelWait = () => undefined as void;
  let refresher: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();
  /** When (the monotonic clock) each handed lead was first seen gone from Redis. */
  let missingSince = new Map<string, number>();
  /** The deliveries running, and what cuts them short once close() has waited for them long enough. */
  const delivering = new Set<Promise<void>>();
  const cutShort = new AbortController();

  /**
   * The local record says delivered (its text then kept as LEAD_RETENTION_DAYS says); `sent`: by
   * this container, which keeps another container's lead until that one has confirmed it.
   */
  async function confirm(id: string, { sent = false, record: crm }: { sent?: boolean; record?: string } = {}) {
    const store = record.store;
    try {
      await retryWhileBusy(() => (sent ? store?.sent(id, clock.now(), retentionMs, crm) : store?.delivered(id, clock.now(), retentionMs, crm)));
    } catch (error) {
      faults.failed(error, "write", { id }); // the next look at Redis confirms it again
    }
  }

  /** Whether this container's record says the lead was sent already (a locked or failing store: no, Redis's mark still counts). */
  function sentHere(id: string): boolean {
    try {
      return record.store?.knownDelivered(id) === true;
    } catch {
      return false;
    }
  }

  async function deliver(job: Job<QueuedLead>) {
    const lead = job.data;
    // Queued again after Redis lost it, or stalled after its send: sent already (as Redis says, or
    // as this container's own record says when Redis lost the mark), not twice.
    const here = sentHere(lead.id);
    if (here) await shared.markAgain(lead.id).catch(() => undefined);
    if (here || (await shared.marked(lead.id))) {
      await confirm(lead.id);
      log.info({ id: lead.id, kind: lead.kind }, "lead_delivered_already");
      return;
    }
    const { outcome, fields } = await attempt(transport, lead, job.attemptsMade + 1, clock, undefined, cutShort.signal);
    // The waits BullMQ scheduled so far (their mean), so a clock jump cannot shorten the window.
    const waited = Array.from({ length: job.attemptsMade + 1 }, (_, n) => retryDelay(n + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    const verdict = verdictOf(outcome, { since: lead.since ?? lead.acceptedAt, retryMs: waited }, clock.now());
    if (outcome.ok) {
      // Marked before the job completes (and may be removed): whichever container keeps its record
      // hears of it. Kept here too, so the mark is made again if Redis loses it before then.
      await shared.mark(lead.id, job.id);
      await confirm(lead.id, { sent: true, record: outcome.record });
    }
    reportAttempt(settings, verdict, outcome, fields);
    // BullMQ writes the rest down: a failed job (parked), or one it tries again on the schedule.
    if (verdict.result === "parked") throw new UnrecoverableError(verdict.reason);
    if (!outcome.ok) throw new Error(outcome.reason);
  }

  /** Adds a lead as the job named by its key; resolves with the id of the lead Redis now has. */
  async function add(lead: StoredLead, key: string): Promise<string> {
    await queue.add("lead", lead, { jobId: key });
    return (await queue.getJob(key))?.data.id ?? lead.id;
  }

  /**
   * Queues a lead recorded here: handed (kept until confirmed), or forgotten when another lead
   * with the same form was queued first. Resolves with the id Redis has.
   */
  async function handOver(lead: StoredLead, key: string): Promise<string> {
    const first = await timeLimit(1_500, add(lead, key));
    await retryWhileBusy(() => (first === lead.id ? record.store?.handed(lead.id) : record.store?.forget(lead.id)));
    return first;
  }

  /**
   * What the local store must tell Redis, and hear from it: held leads the ceiling now lets go
   * (oldest first, at its pace), leads kept while Redis was away, and, for leads handed over,
   * whether they were delivered (by any container) or are gone from Redis and must be queued again.
   */
  async function tick() {
    const store = record.store;
    if (!store) return;
    try {
      await record.upkeep(store);
      // Without Redis, this store's own ceiling lets held leads go, as it lets new ones in.
      if (producer.status !== "ready") await record.releaseHeld(store);
    } catch (error) {
      faults.lookFailed(error);
      return;
    }
    if (producer.status !== "ready") {
      faults.cleared();
      return;
    }
    try {
      // First, so a lead this container sent is marked again before anything else here can fail.
      await shared.markAgainForOthers(store);
      // The fairest held lead first (decision 0031): one address's flood cannot go ahead of everyone.
      // Ranked only when the shared ceiling has room: ranking a large flood's leads takes a while.
      while (await shared.roomForHeld()) {
        const held = await retryWhileBusy(() => store.nextHeld(clock.now()), LOOK_WAIT_MS);
        if (!held || !(await shared.admit(held.id, true))) break;
        if (await retryWhileBusy(() => store.admitHeld(held.id, clock.now()))) log.info({ id: held.id, kind: held.kind }, "lead_released");
      }
      for (const row of await retryWhileBusy(() => store.list(["pending"]), LOOK_WAIT_MS)) {
        if (!row.lead) {
          await record.parkUnreadable(store, row.id, row.kind);
          continue;
        }
        const first = await handOver(row.lead, row.key ?? row.id);
        log.info({ id: row.id, kind: row.kind, duplicateOf: first === row.id ? undefined : first }, "lead_handed_to_redis");
      }
      await checkHanded(store);
    } catch (error) {
      // A store write that failed is a fault; Redis going away is reported by its connection.
      if (sqliteCause(error).code !== undefined) {
        faults.lookFailed(error);
        return;
      }
    }
    faults.cleared();
  }

  /** Leads handed over: confirmed once Redis says delivered (by any container), queued again once gone from it for a lease. */
  async function checkHanded(store: LeadStore) {
    const handed = await retryWhileBusy(() => store.handedKeys(), LOOK_WAIT_MS);
    const where = await shared.where(handed);
    const seenMissing = missingSince;
    missingSince = new Map();
    const confirmed: string[] = [];
    for (const [i, { id, kind, key }] of handed.entries()) {
      if (where[i] === "delivered") {
        await retryWhileBusy(() => store.delivered(id, clock.now(), retentionMs));
        confirmed.push(id);
      }
      if (where[i] !== "missing") continue;
      // A send in flight when Redis lost its job (here or in another container) ends within one
      // lease and marks the lead delivered: queued again before that, it would be sent twice.
      const since = seenMissing.get(id) ?? clock.monotonic();
      if (clock.monotonic() - since < leaseMs) {
        missingSince.set(id, since);
        continue;
      }
      const lead = (await retryWhileBusy(() => store.get(id), LOOK_WAIT_MS))?.lead;
      if (!lead) {
        await record.parkUnreadable(store, id, kind);
        continue;
      }
      await add(lead, key);
      log.warn({ id, kind }, "lead_requeued");
    }
    await shared.acknowledge(confirmed);
  }

  function sleep() {
    if (stopped) return;
    cancelWait = clock.after(faults.wait(pollMs), () => {
      ticking = tick()
        .catch(() => undefined)
        .finally(sleep);
    });
  }

  /** Reads what Redis holds for stats(), every `refreshMs`. */
  async function refresh() {
    const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized", "failed");
    const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"], 0, 999);
    inRedis = {
      pending: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0),
      parked: counts.failed ?? 0,
      oldestAt: Math.min(...jobs.map((j) => j.data.acceptedAt)),
    };
  }

  /** Redis first for what every container shares: the same form already queued, and the ceiling (undefined: Redis cannot say). */
  async function askRedis(id: string, key: string, busy: boolean): Promise<{ first: string } | { admitted: boolean } | undefined> {
    try {
      return await timeLimit(
        1_500,
        (async () => {
          const seen = (await queue.getJob(key))?.data.id ?? (await shared.formSent(key));
          return seen ? { first: seen } : { admitted: !busy && (await shared.admit(id, false)) };
        })(),
      );
    } catch (error) {
      log.warn({ err: error }, "lead_queue_redis_unavailable");
      return undefined;
    }
  }

  return {
    async start() {
      await record.open(); // throws StoreUnusable: the records must be there
      connection = watch(workerConnection(redisUrl), log, "worker");
      const track = (job: Job<QueuedLead>) => {
        const running = deliver(job);
        delivering.add(running);
        return running.finally(() => delivering.delete(running));
      };
      worker = new Worker<QueuedLead>(QUEUE.name, track, {
        connection,
        prefix: QUEUE.prefix,
        skipVersionCheck: true,
        concurrency,
        // A delivery's lock is renewed every 2.5 s while it runs, however long FORM_TIMEOUT_MS lets
        // it take; a killed container's lock lapses within 5 s and the next 5 s stalled check
        // hands the lead on: ~10 s at most (decision 0018). Stalling, however often, never parks.
        lockDuration: 5_000,
        stalledInterval: 5_000,
        maxStalledCount: 1_000_000,
        // After a Redis error the worker waits this long before it asks for jobs again (BullMQ's
        // default is 15 s): deliveries resume as soon as the rest of the queue looks again.
        runRetryDelay: pollMs,
        settings: { backoffStrategy: backoff },
      });
      worker.on("error", () => undefined); // reported by the connection's listener
      refresher = setInterval(() => void refresh().catch(() => undefined), refreshMs);
      refresher.unref();
      void refresh().catch(() => undefined);
      sleep();
    },
    async accept(lead: Lead, { group }: LeadOrigin = {}) {
      const store = record.opened();
      const stored: StoredLead = { ...lead, id: newLeadId(clock.now()), acceptedAt: clock.now() };
      const key = leadKey(lead);
      // Over its address's share, a lead is held here without taking room in the shared ceiling.
      let busy = false;
      try {
        busy = group !== undefined && store.addressBusy(group, stored.acceptedAt);
      } catch {
        // the insert below meets the same fault and says so
      }
      const shared = await askRedis(stored.id, key, busy);
      if (shared && "first" in shared) return record.duplicate(shared.first, lead.kind);
      // Then the record, here, before the visitor is thanked; without Redis, this store's own ceiling.
      const limit = shared === undefined ? perHour : shared.admitted ? Infinity : 0;
      const result: InsertResult = await record.insert(lead, { id: stored.id, key, now: stored.acceptedAt, perHour: limit, group });
      if (result.duplicate) return record.duplicate(result.id, lead.kind);
      let first: string | undefined;
      if (shared && !result.held) {
        try {
          first = await handOver(stored, key);
        } catch (error) {
          // Recorded here: handed over on the next look.
          if (sqliteCause(error).code !== undefined) faults.failed(error, "write", { id: stored.id });
          else log.warn({ err: error }, "lead_queue_redis_unavailable");
        }
      }
      if (first !== undefined && first !== stored.id) return record.duplicate(first, lead.kind);
      return first === undefined ? record.stored(lead, result, "sqlite", "warn") : record.stored(lead, result, "redis");
    },
    stats: () => record.stats({ ...inRedis, redis: producer.status === "ready" ? "ready" : "down" }),
    async close(cut?: AbortSignal) {
      stopped = true;
      cancelWait();
      clearInterval(refresher);
      // The worker takes no more leads; those it is delivering end, or are cut short once `cut`
      // aborts (one waiting on a Redis that does not answer fails once the connections are dropped).
      const workerClosed = worker?.close();
      await Promise.race([Promise.allSettled(delivering), whenAborted(cut)]);
      cutShort.abort();
      // BullMQ's last writes, the look in flight and the start's check need Redis: a Redis down or
      // paused would hold them (and the stop) for ever, so they get a second, then the connections
      // are dropped, which fails whatever still waits on them.
      const redisWork = Promise.allSettled([workerClosed, queue.close(), ticking, checked, ...delivering]);
      await timeLimit(QUIT_WAIT_MS, redisWork).catch(() => undefined);
      connection?.disconnect();
      producer.disconnect();
      // What failed so ends before the store closes under it.
      await Promise.allSettled([ticking, ...delivering]);
      record.close();
    },
  };
}

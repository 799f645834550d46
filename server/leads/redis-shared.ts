/**
 * What every container shares in Redis beside BullMQ's jobs (decisions 0023, 0033): the delivered
 * marks, the forms delivered, the hourly ceiling's set and its script; and the check at start of
 * what this Redis may lose. The operator's command reads it too (cli.ts).
 */
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../log";
import type { Clock } from "./clock";
import { DEDUPE_WINDOW_MS } from "./schedule";
import { retryWhileBusy } from "./database";
import { LOOK_WAIT_MS } from "./pipeline";
import type { LeadStore } from "./store";
import type { StoredLead } from "./types";

export const QUEUE = { name: "leads", prefix: "agency-site" };
/** A re-queued lead gets a fresh retry window from `since`. */
export type QueuedLead = StoredLead & { since?: number };

/**
 * Written by whichever container delivered a lead, so the one that keeps its record hears of it.
 * That one, once its record says so, makes the value `confirmed:<time>`: the sender may then
 * forget it (decision 0033).
 */
const deliveredKey = (id: string) => `${QUEUE.prefix}:delivered:${id}`;
/**
 * A form delivered, by its dedupe key (schedule.ts, leadKey): its lead's id, for a day. The job
 * that says so may be gone at once (LEAD_RETENTION_DAYS=0 erases its text), and the same form
 * sent again to another container must still be the first one's lead.
 */
const sentFormKey = (key: string) => `${QUEUE.prefix}:form:${key}`;
/**
 * A person's lead erased (personal-data.ts): the same form sent again is a new lead, and no key
 * made from their words stays behind.
 */
export const forgetForm = (redis: Redis, key: string) => redis.del(sentFormKey(key));
const CONFIRMED = "confirmed:";
/** Longer than a container is expected to stay down with deliveries still to hear of. */
const DELIVERED_MARK_MS = 30 * 86_400_000;
/** The leads the ceiling let through, by time: one sorted set for every container. */
const ADMITTED = `${QUEUE.prefix}:leads-admitted`;
const HOUR_MS = 3_600_000;

/**
 * Lets a lead through the shared ceiling, or not: fewer than ARGV[3] in the last hour, and (when
 * ARGV[4] is set, for a held lead) none since that time. ARGV: now, an hour ago, the ceiling, the
 * pace's bound, the lead's id. Times ahead of `now` (a clock set back) do not count.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[2], ARGV[1]) >= tonumber(ARGV[3]) then return 0 end
if ARGV[4] ~= '' and #redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[4], ARGV[1], 'LIMIT', 0, 1) > 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('PEXPIRE', KEYS[1], 3600000)
return 1
`;

/** Where Redis has leads handed to it: delivered (by any container), still queued (or parked there), or gone. */
export async function whereInRedis(redis: Redis, queue: Queue, leads: { id: string; key: string }[]): Promise<("delivered" | "queued" | "missing")[]> {
  const where: ("delivered" | "queued" | "missing")[] = [];
  // A few hundred leads per transaction. In one: a delivery marks its lead before the job
  // completes, so at any one moment Redis has the one or the other unless it lost them.
  for (let from = 0; from < leads.length; from += 300) {
    const some = leads.slice(from, from + 300);
    const multi = redis.multi();
    for (const { id, key } of some) multi.exists(deliveredKey(id)).zscore(queue.toKey("completed"), key).exists(queue.toKey(key));
    const answers = await multi.exec();
    if (!answers) throw new Error("the Redis transaction was aborted");
    const failed = answers.find(([error]) => error);
    if (failed) throw failed[0];
    for (let i = 0; i < some.length; i++) {
      const [marked, completed, queued] = answers.slice(i * 3, i * 3 + 3).map(([, value]) => value);
      where.push(Number(marked) === 1 || completed !== null ? "delivered" : Number(queued) === 1 ? "queued" : "missing");
    }
  }
  return where;
}

/**
 * At start, one JSON warning for each way this Redis could lose queued leads (the local records
 * still hold them), and for a Redis older than BullMQ recommends. BullMQ would print the first
 * and last as plain text on every connection: its `skipVersionCheck` (below) leaves them to us.
 */
export async function checkRedis(producer: Redis, log: Logger) {
  const info = await producer.info();
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy && policy !== "noeviction") log.warn({ policy, expected: "noeviction" }, "redis_eviction_policy");
  const version = /^redis_version:(\S+)/m.exec(info)?.[1];
  if (version && olderThan(version, BULLMQ_RECOMMENDS)) log.warn({ version, expected: `${BULLMQ_RECOMMENDS} or newer` }, "redis_version_old");
  // CONFIG may be switched off (a managed Redis): then nothing is said.
  const setting = async (name: string) => ((await producer.config("GET", name)) as string[])[1];
  const [appendonly, save] = await Promise.all([setting("appendonly"), setting("save")]);
  if (appendonly === "no" && save === "") log.warn({ appendonly, save, expected: "appendonly yes" }, "redis_persistence_off");
}
/** The oldest Redis BullMQ runs on without a warning (its RedisConnection.recommendedMinimumVersion). */
const BULLMQ_RECOMMENDS = "6.2.0";
/** Compared part by part as numbers ("6.10.0" is newer than "6.2.0"). */
const olderThan = (version: string, than: string) => version.localeCompare(than, "en", { numeric: true }) < 0;

/** The shared state, as one container's lead queue reads and writes it through `producer`. */
export function sharedInRedis(producer: Redis, queue: Queue, clock: Clock, perHour: number) {
  return {
    /** Through the shared ceiling (a held lead: also at its pace), or not. */
    async admit(id: string, held: boolean): Promise<boolean> {
      const at = clock.now();
      const pace = held ? String(at - HOUR_MS / perHour) : "";
      return Number(await producer.eval(ADMIT, 1, ADMITTED, String(at), String(at - HOUR_MS), String(perHour), pace, id)) === 1;
    },

    /** Whether the shared ceiling would let a held lead through now, at its pace (a look only: admit decides). */
    async roomForHeld(): Promise<boolean> {
      const at = clock.now();
      const [inHour, lately] = await Promise.all([
        producer.zcount(ADMITTED, `(${at - HOUR_MS}`, at),
        producer.zcount(ADMITTED, `(${at - HOUR_MS / perHour}`, at),
      ]);
      return inHour < perHour && lately === 0;
    },

    /** A delivery, said before its job completes (and may be removed); `form`: its job id, the form's key. */
    async mark(id: string, form?: string) {
      await producer.set(deliveredKey(id), String(clock.now()), "PX", DELIVERED_MARK_MS).catch(() => undefined);
      if (form) await producer.set(sentFormKey(form), id, "PX", DEDUPE_WINDOW_MS).catch(() => undefined);
    },
    /** A delivery this container's record knows of, said again should Redis have lost it. */
    markAgain: (id: string) => producer.set(deliveredKey(id), String(clock.now()), "PX", DELIVERED_MARK_MS, "NX"),
    marked: async (id: string) => (await producer.exists(deliveredKey(id))) === 1,
    /** The lead a form was delivered as, by any container, within the dedupe window. */
    formSent: (key: string) => producer.get(sentFormKey(key)),

    /** Tells whoever sent these leads that this container's record has them as delivered. */
    async acknowledge(ids: string[]) {
      if (ids.length === 0) return;
      const multi = producer.multi();
      for (const id of ids) multi.set(deliveredKey(id), `${CONFIRMED}${clock.now()}`, "PX", DELIVERED_MARK_MS);
      await multi.exec();
    },

    /**
     * Makes again the marks of leads this container sent for another that Redis lost (restarted
     * empty, flushed) before that container heard of them: it waits one lease before it queues a
     * lost lead again, and finds the mark back by then (decision 0033). A mark that says confirmed
     * ends the keeping, as does the mark's own age.
     */
    async markAgainForOthers(store: LeadStore) {
      const sent = await retryWhileBusy(() => store.sentForOthers(), LOOK_WAIT_MS);
      for (let from = 0; from < sent.length; from += 300) {
        const some = sent.slice(from, from + 300);
        const multi = producer.multi();
        for (const { id, deliveredAt } of some) multi.set(deliveredKey(id), String(deliveredAt), "PX", DELIVERED_MARK_MS, "NX").get(deliveredKey(id));
        const answers = await multi.exec();
        if (!answers) throw new Error("the Redis transaction was aborted");
        for (const [i, { id, deliveredAt }] of some.entries()) {
          const mark = answers[i * 2 + 1]?.[1];
          const heard = (typeof mark === "string" && mark.startsWith(CONFIRMED)) || clock.now() - deliveredAt > DELIVERED_MARK_MS;
          if (heard) await retryWhileBusy(() => store.heardOf(id));
        }
      }
    },

    where: (leads: { id: string; key: string }[]) => whereInRedis(producer, queue, leads),
  };
}

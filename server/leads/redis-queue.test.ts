/**
 * The Redis mode against real redis-servers (Debian's): one per test on a free port, so the tests
 * run at once. The queue looks around, and retries, every few milliseconds instead of seconds.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { Redis } from "ioredis";
import { testClock } from "../../tests/support/clock";
import { startRedis, type RedisServer } from "../../tests/support/redis";
import { quietLog, recordingLog } from "../../tests/support/quiet-log";
import { runCli } from "./cli";
import { createRedisQueue, type RedisQueueOptions } from "./redis-queue";
import { QUEUE } from "./redis-shared";
import { leadKey } from "./schedule";
import { openStore } from "./store";
import type { DeliveryOutcome, Lead, StoredLead, Transport } from "./types";

const lead: Lead = { kind: "calculator", subject: "New cost estimate request from Acme", fromName: "Acme", replyTo: "ada@acme.example", text: "Service: SEO" };
const until = async (check: () => boolean | Promise<boolean>, ms = 8_000) => {
  for (const started = Date.now(); !(await check()); await new Promise((r) => setTimeout(r, 50))) if (Date.now() - started > ms) throw new Error("timed out");
};

/** Records every attempt; `answer` decides each one. */
function recording(answer: (lead: StoredLead) => DeliveryOutcome) {
  const delivered: string[] = [];
  const attempts: string[] = [];
  const transport: Transport = {
    name: "fake",
    deliver: async (l) => {
      attempts.push(l.id);
      const outcome = answer(l);
      if (outcome.ok) delivered.push(l.id);
      return outcome;
    },
  };
  return { transport, delivered, attempts };
}

const POLL_MS = 50;
/** What the server passes (lead-inbox.ts) at the default configuration. */
const defaults = { retentionMs: 30 * 86_400_000, perHour: 60, leaseMs: 40_000 };
/** Resolves once the queues on `time` have gone to sleep `n` more times: each look at Redis ends so. */
const lookedAgain = async (time: ReturnType<typeof testClock>, n = 3) => {
  const from = time.naps();
  await until(() => time.naps() >= from + n);
};

/**
 * A redis-server of the test's own, stopped when that test ends. The hook is the test context's:
 * in concurrent tests vitest's global `onTestFinished` may attach it to another test, whose end
 * then killed this test's Redis mid-test (a restarted one within milliseconds).
 */
async function ownRedis({ onTestFinished }: TestContext): Promise<RedisServer> {
  const redis = await startRedis();
  onTestFinished(() => redis.stop());
  return redis;
}

const queueFor = async (redis: RedisServer, transport: Transport, dir?: string, options: Partial<RedisQueueOptions> = {}) =>
  createRedisQueue({
    ...defaults,
    redisUrl: redis.url,
    dbFile: join(dir ?? (await mkdtemp(join(tmpdir(), "rq-"))), "leads.db"),
    transport,
    log: quietLog,
    backoff: () => 200,
    pollMs: POLL_MS,
    refreshMs: POLL_MS,
    leaseMs: 10 * POLL_MS,
    ...options,
  });
/** The local record of a lead, as the store in `dir` has it now. */
const record = (dir: string, id: string) => {
  const store = openStore(join(dir, "leads.db"));
  try {
    return store.list(["pending", "handed", "held", "delivered"]).find((r) => r.id === id);
  } finally {
    store.close();
  }
};
const failing: DeliveryOutcome = { ok: false, retry: true, reason: "http", status: 503 };

describe.concurrent("the Redis queue", () => {
  it("lets any process deliver a lead another stored, even after the one that stored it is gone", async (t) => {
    let serviceUp = false;
    const a = recording(() => ({ ok: false, retry: true, reason: "http", status: 503 }));
    const b = recording(() => (serviceUp ? { ok: true } : { ok: false, retry: true, reason: "http", status: 503 }));
    const redis = await ownRedis(t);
    const first = await queueFor(redis, a.transport);
    await first.start();
    const ids = (await Promise.all(["one", "two", "three"].map((t) => first.accept({ ...lead, text: `Service: SEO ${t}` })))).map(({ id }) => id);
    await until(() => a.attempts.length >= 3);
    await first.close();

    const second = await queueFor(redis, b.transport);
    await second.start();
    serviceUp = true;
    await until(() => b.delivered.length === 3);
    expect(b.delivered.sort()).toEqual([...ids].sort());
    await until(async () => second.stats().pending === 0);
    await second.close();
  });

  it("parks a lead refused for good as a failed job, which the CLI re-queues", async (t) => {
    let refuse = true;
    const { transport, delivered } = recording(() => (refuse ? { ok: false, retry: false, reason: "http", status: 401 } : { ok: true }));
    const redis = await ownRedis(t);
    const queue = await queueFor(redis, transport);
    await queue.start();
    const { id } = await queue.accept(lead);
    await until(() => queue.stats().parked >= 1);
    const out: string[] = [];
    expect(await runCli(["list"], { REDIS_URL: redis.url, DATA_DIR: join(tmpdir(), "rq-none") }, (l) => out.push(l))).toBe(0);
    expect(out.find((l) => l.startsWith(id))).toMatch(/\tparked\t/);
    refuse = false;
    expect(await runCli(["retry", id], { REDIS_URL: redis.url, DATA_DIR: join(tmpdir(), "rq-none") }, () => undefined)).toBe(0);
    await until(() => delivered.includes(id));
    await queue.close();
  });

  it("the same form posted twice is one job, and answers the first one's id", async (t) => {
    const { transport, delivered } = recording(() => ({ ok: true }));
    const time = testClock();
    const queue = await queueFor(await ownRedis(t), transport, undefined, { clock: time.clock });
    await queue.start();
    const same = { ...lead, text: "Service: SEO (twice)" };
    const [{ id: a, first }, again] = [await queue.accept(same), await queue.accept({ ...same })];
    expect([first, again]).toEqual([true, { id: a, first: false }]);
    await until(() => delivered.includes(a));
    expect(await queue.accept(same)).toEqual({ id: a, first: false });
    time.advance(10 * POLL_MS); // past the lease: a lead gone from Redis would be queued again
    await lookedAgain(time, 10);
    expect(delivered.filter((d) => d === a)).toHaveLength(1);
    await queue.close();
  });

  it("keeps a lead in the local store while Redis is down and hands it over, once, when it is back", async (t) => {
    const { transport, delivered } = recording(() => ({ ok: true }));
    const dir = await mkdtemp(join(tmpdir(), "rq-"));
    const redis = await ownRedis(t);
    const time = testClock();
    const queue = await queueFor(redis, transport, dir, { clock: time.clock });
    await queue.start();
    await redis.stop();
    await until(() => queue.stats().redis === "down");
    const { id } = await queue.accept(lead);
    expect(queue.stats()).toMatchObject({ store: "redis", writable: true, pending: 1, redis: "down" });
    await redis.restart();
    await until(() => delivered.includes(id));
    await lookedAgain(time, 10); // ten more hand-over rounds
    expect(delivered.filter((d) => d === id)).toHaveLength(1);
    await queue.close();
  });

  it("keeps each lead's record, with its text, until its delivery is confirmed; a Redis that comes back empty gets it queued again, and it is delivered once", async (t) => {
    let up = false;
    const { transport, delivered, attempts } = recording(() => (up ? { ok: true } : failing));
    const dir = await mkdtemp(join(tmpdir(), "rq-"));
    const redis = await ownRedis(t);
    const time = testClock();
    const queue = await queueFor(redis, transport, dir, { clock: time.clock });
    await queue.start();
    const { id } = await queue.accept(lead);
    await until(() => attempts.includes(id));
    expect(record(dir, id)).toMatchObject({ status: "handed", lead: { text: lead.text } });
    await redis.stop();
    await redis.restart(); // empty
    up = true;
    await until(() => delivered.includes(id));
    await until(() => record(dir, id)?.status === "delivered");
    time.advance(10 * POLL_MS); // past the lease
    await lookedAgain(time, 10);
    expect(delivered.filter((d) => d === id)).toHaveLength(1);
    await queue.close();
  });

  it("a lead another process delivered is confirmed in the record of the one that took it, once that one is back; with retention 0 no text stays", async (t) => {
    const redis = await ownRedis(t);
    const [dirA, dirB] = [await mkdtemp(join(tmpdir(), "rq-")), await mkdtemp(join(tmpdir(), "rq-"))];
    const a = await queueFor(redis, recording(() => failing).transport, dirA, { retentionMs: 0 });
    await a.start();
    const { id } = await a.accept(lead);
    await a.close();
    const b = recording(() => ({ ok: true }));
    const other = await queueFor(redis, b.transport, dirB, { retentionMs: 0 });
    await other.start();
    await until(() => b.delivered.includes(id));
    expect(record(dirA, id)).toMatchObject({ status: "handed", lead: { text: lead.text } });
    const back = await queueFor(redis, recording(() => failing).transport, dirA, { retentionMs: 0 });
    await back.start();
    await until(() => record(dirA, id)?.status === "delivered");
    expect(record(dirA, id)?.lead).toBeNull();
    expect(b.delivered).toEqual([id]);
    await Promise.all([back.close(), other.close()]);
  });

  it("a lead another process delivered, whose mark Redis lost before the one that took it heard of it, is not queued again: the sender makes the mark again until it is confirmed", async (t) => {
    const redis = await ownRedis(t);
    const [dirA, dirB] = [await mkdtemp(join(tmpdir(), "rq-")), await mkdtemp(join(tmpdir(), "rq-"))];
    const a = recording(() => ({ ok: true }));
    const taker = await queueFor(redis, recording(() => failing).transport, dirA);
    await taker.start();
    const { id } = await taker.accept(lead);
    await taker.close(); // it cannot hear of the delivery before Redis loses everything
    const b = recording(() => ({ ok: true }));
    const other = await queueFor(redis, b.transport, dirB);
    await other.start();
    await until(() => b.delivered.includes(id));
    await redis.stop();
    await redis.restart(); // empty: the job and the mark are gone
    const time = testClock();
    const back = await queueFor(redis, a.transport, dirA, { clock: time.clock });
    await back.start();
    await until(() => record(dirA, id)?.status === "delivered");
    time.advance(12 * POLL_MS); // past the lease: nothing is queued again
    await lookedAgain(time);
    expect([b.delivered, a.attempts]).toEqual([[id], []]);
    const sender = openStore(join(dirB, "leads.db"));
    await until(() => sender.sentForOthers().length === 0); // confirmed: the sender forgets it
    sender.close();
    await Promise.all([back.close(), other.close()]);
  });

  it("held leads go out on their own once the shared hour has room, at the ceiling's pace", async (t) => {
    const time = testClock();
    const { transport, delivered } = recording(() => ({ ok: true }));
    const queue = await queueFor(await ownRedis(t), transport, undefined, { perHour: 1, clock: time.clock });
    await queue.start();
    const { id: first } = await queue.accept(lead);
    const { id: held } = await queue.accept({ ...lead, text: "Service: SEO (held)" });
    await until(() => delivered.includes(first));
    expect(queue.stats()).toMatchObject({ held: 1 });
    await lookedAgain(time, 10);
    expect(delivered).toEqual([first]);
    time.advance(3_600_001);
    await until(() => delivered.includes(held));
    expect(queue.stats()).toMatchObject({ held: 0 });
    await queue.close();
  });

  it("while Redis is away, the local store's own ceiling holds leads and lets them go; they are queued once Redis is back", async (t) => {
    const time = testClock();
    const { transport, delivered } = recording(() => ({ ok: true }));
    const redis = await ownRedis(t);
    const queue = await queueFor(redis, transport, undefined, { perHour: 1, clock: time.clock });
    await queue.start();
    await redis.stop();
    await until(() => queue.stats().redis === "down");
    const { id: first } = await queue.accept(lead);
    const { id: held } = await queue.accept({ ...lead, text: "Service: SEO (held while away)" });
    expect(queue.stats()).toMatchObject({ pending: 1, held: 1 });
    time.advance(3_600_001);
    await until(() => queue.stats().held === 0);
    await redis.restart();
    await until(() => delivered.includes(first) && delivered.includes(held));
    await queue.close();
  });

  it("keeps the log JSON without touching the process's console: BullMQ's own warnings are left to ours", async (t) => {
    const [warn, error] = [console.warn, console.error];
    const redis = await startRedis(undefined, ["--maxmemory-policy", "allkeys-lru"]);
    t.onTestFinished(() => redis.stop());
    const { log, count } = recordingLog();
    const queue = await queueFor(redis, recording(() => ({ ok: true })).transport, undefined, { log });
    await queue.start();
    await until(() => count("redis_eviction_policy") === 1);
    await queue.close();
    expect([console.warn, console.error]).toEqual([warn, error]);
  });

  it("says once, at start, when Redis keeps nothing across a restart (no AOF, no RDB save points)", async () => {
    const [bare, saving] = await Promise.all([startRedis(), startRedis(undefined, ["--save", "3600 1"])]);
    try {
      for (const [redis, warned] of [
        [bare, 1],
        [saving, 0],
      ] as const) {
        const { log, count } = recordingLog();
        const dbFile = join(await mkdtemp(join(tmpdir(), "rq-")), "leads.db");
        const queue = createRedisQueue({ ...defaults, redisUrl: redis.url, dbFile, transport: recording(() => ({ ok: true })).transport, log });
        await queue.start();
        await until(() => queue.stats().redis === "ready");
        // Said after two more answers from Redis; close waits for the check to end, said or not.
        if (warned) await until(() => count("redis_persistence_off") > 0);
        await queue.close();
        expect(count("redis_persistence_off")).toBe(warned);
      }
    } finally {
      await Promise.all([bare.stop(), saving.stop()]);
    }
  });
});

// On its own, after the others: it waits through a lease, and their load would only blur its timing.
describe("the Redis queue, a send in flight", () => {
  it("a lead whose job Redis loses while its send is in flight is not queued again under that send: it is sent once", async (t) => {
    let release = () => undefined as void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const attempts: string[] = [];
    const transport: Transport = {
      name: "slow",
      async deliver(l) {
        attempts.push(l.id);
        await answered;
        return { ok: true };
      },
    };
    const dir = await mkdtemp(join(tmpdir(), "rq-"));
    const redis = await ownRedis(t);
    const time = testClock();
    const queue = await queueFor(redis, transport, dir, { leaseMs: 1_000, clock: time.clock });
    await queue.start();
    const { id } = await queue.accept(lead);
    await until(() => attempts.includes(id));
    await redis.stop();
    await redis.restart(); // empty, with the send still waiting for the service
    await until(() => queue.stats().redis === "ready");
    await lookedAgain(time, 12); // the record has looked at Redis again, many times
    release();
    await until(() => record(dir, id)?.status === "delivered");
    time.advance(1_200); // past the lease: nothing is left to queue again
    await lookedAgain(time);
    expect(attempts).toEqual([id]);
    await queue.close();
  });
  it("with no retention, the same form sent again to another container is the first one's lead, delivered once", async ({ onTestFinished }) => {
    const redis = await ownRedis({ onTestFinished } as TestContext);
    const a = recording(() => ({ ok: true }));
    const b = recording(() => ({ ok: true }));
    const time = testClock();
    const first = await queueFor(redis, a.transport, undefined, { retentionMs: 0, clock: time.clock });
    const other = await queueFor(redis, b.transport, undefined, { retentionMs: 0, clock: time.clock });
    await Promise.all([first.start(), other.start()]);
    const same = { ...lead, text: "Service: SEO (resent after a lost reply)" };
    const { id } = await first.accept(same);
    await until(() => a.delivered.includes(id) || b.delivered.includes(id));
    const probe = new Redis(redis.url);
    await until(async () => (await probe.exists(`${QUEUE.prefix}:${QUEUE.name}:${leadKey(same)}`)) === 0); // the job is gone with its text
    probe.disconnect();
    expect(await other.accept({ ...same })).toEqual({ id, first: false });
    time.advance(10 * POLL_MS); // past the lease
    await lookedAgain(time, 4);
    expect([...a.delivered, ...b.delivered]).toEqual([id]);
    await Promise.all([first.close(), other.close()]);
  });
});

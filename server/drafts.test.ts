/** The draft store in memory and against a real redis-server (Debian's) on a free port. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../tests/support/redis";
import { quietLog, recordingLog, until } from "../tests/support/quiet-log";
import { createDraftStore } from "./drafts";

const draft = { fields: { "state.step": "5", "state.description": "d".repeat(5000) }, errors: { email: ["Please enter a valid email address"] } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
describe("in memory (no REDIS_URL)", () => {
  it("gives each save a fresh 22-character id and loads a copy of what was saved", async () => {
    const store = createDraftStore({ log: quietLog });
    const [a, b] = [await store.save(draft), await store.save(draft)];
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    const loaded = await store.load(a);
    expect(loaded).toEqual(draft);
    expect(loaded).not.toBe(draft);
  });

  it("saving with the id of an earlier draft replaces it; a malformed id gets a fresh one", async () => {
    const store = createDraftStore({ log: quietLog });
    const id = await store.save(draft);
    expect(await store.save({ fields: {} }, id)).toBe(id);
    expect(await store.load(id)).toEqual({ fields: {} });
    const fresh = await store.save(draft, "not-an-id");
    expect(fresh).not.toBe("not-an-id");
    expect(await store.load(fresh)).toEqual(draft);
  });

  it("answers undefined for unknown, malformed and expired ids", async () => {
    const store = createDraftStore({ log: quietLog, ttlSeconds: 0.05 });
    const id = await store.save(draft);
    for (const other of ["A".repeat(22), "../../etc/passwd", "", `${id}x`]) expect(await store.load(other)).toBeUndefined();
    await sleep(120);
    expect(await store.load(id)).toBeUndefined();
  });

  it("stays within its size bound, dropping the least recently used", async () => {
    const store = createDraftStore({ log: quietLog, maxMemory: 30_000 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await store.save(draft));
    expect(await store.load(ids[0]!)).toBeUndefined();
    expect(await store.load(ids[9]!)).toEqual(draft);
  });
});

describe("with Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => void (redis = await startRedis()));
  afterAll(() => redis.stop());

  it("one server's draft is loaded by another, with the store's expiry", async () => {
    const { log, count } = recordingLog();
    const [a, b] = [createDraftStore({ redisUrl: redis.url, log }), createDraftStore({ redisUrl: redis.url, log })];
    await until(() => count("draft_store_ready") === 2);
    const id = await a.save(draft);
    expect(await b.load(id)).toEqual(draft);
    await a.close();
    await b.close();
  });

  it("keeps drafts in memory while Redis is unreachable", async () => {
    const down = await startRedis();
    const { log, count } = recordingLog();
    const store = createDraftStore({ redisUrl: down.url, log });
    await until(() => count("draft_store_ready") === 1);
    await down.stop();
    await until(() => count("draft_store_down") === 1);
    const id = await store.save(draft);
    expect(await store.load(id)).toEqual(draft);
    await store.close();
  });
});

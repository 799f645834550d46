/** The draft store in memory and against a real redis-server (Debian's) on a free port. */
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../tests/support/redis";
import { quietLog, recordingLog, until } from "../tests/support/quiet-log";
import { createDraftStore } from "./drafts";

const draft = { fields: { "state.step": "5", "state.description": "d".repeat(5000) }, errors: { email: ["Please enter a valid email address"] } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Owners as the app makes them: the SHA-256 of a browser's cookie token. */
const owner = (token: string) => createHash("sha256").update(token).digest("base64url");
const [alice, mallory] = [owner("alice"), owner("mallory")];

describe("in memory (no REDIS_URL)", () => {
  it("gives each save a fresh 22-character id and loads a copy of what was saved", async () => {
    const store = createDraftStore({ log: quietLog });
    const [a, b] = [await store.save(alice, draft), await store.save(alice, draft)];
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    const loaded = await store.load(alice, a);
    expect(loaded).toEqual(draft);
    expect(loaded).not.toBe(draft);
  });

  it("saving with the id of the owner's earlier draft replaces it; any other id gets a fresh one", async () => {
    const store = createDraftStore({ log: quietLog });
    const id = await store.save(alice, draft);
    expect(await store.save(alice, { fields: {} }, id)).toBe(id);
    expect(await store.load(alice, id)).toEqual({ fields: {} });
    for (const other of ["not-an-id", "A".repeat(22)]) {
      const fresh = await store.save(alice, draft, other);
      expect(fresh).not.toBe(other);
      expect(await store.load(alice, fresh)).toEqual(draft);
    }
  });

  it("a draft is its owner's alone: another owner can neither load, replace nor delete it, nor adopt its id", async () => {
    const store = createDraftStore({ log: quietLog });
    const id = await store.save(alice, draft);
    expect(await store.load(mallory, id)).toBeUndefined();
    expect(await store.load(undefined, id)).toBeUndefined();
    const theirs = await store.save(mallory, { fields: { "state.email": "mallory@evil.example" } }, id);
    expect(theirs).not.toBe(id);
    await store.delete(mallory, id);
    expect(await store.load(alice, id)).toEqual(draft);
    // …and the other way round: the maker of a link cannot make a visitor save under its id.
    expect(await store.save(alice, draft, theirs)).not.toBe(theirs);
    expect(await store.load(mallory, theirs)).toEqual({ fields: { "state.email": "mallory@evil.example" } });
    await store.delete(alice, id);
    expect(await store.load(alice, id)).toBeUndefined();
  });

  it("answers undefined for unknown, malformed and expired ids, and lets an expired draft go from memory at its expiry", async () => {
    const store = createDraftStore({ log: quietLog, ttlSeconds: 0.05 });
    const id = await store.save(alice, draft);
    for (const other of ["A".repeat(22), "../../etc/passwd", "", `${id}x`]) expect(await store.load(alice, other)).toBeUndefined();
    expect(store.size).toBe(1);
    await sleep(150);
    // Purged without being looked up: the text does not outlive the lifetime the notice states.
    expect(store.size).toBe(0);
    expect(await store.load(alice, id)).toBeUndefined();
  });

  it("stays within its size bound, dropping the least recently used", async () => {
    const store = createDraftStore({ log: quietLog, maxMemory: 30_000 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await store.save(alice, draft));
    expect(await store.load(alice, ids[0]!)).toBeUndefined();
    expect(await store.load(alice, ids[9]!)).toEqual(draft);
  });
});

describe("with Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => void (redis = await startRedis()));
  afterAll(() => redis.stop());

  it("one server's draft is loaded by another (its owner's only), with the store's expiry, and deleted for both", async () => {
    const { log, count } = recordingLog();
    const [a, b] = [createDraftStore({ redisUrl: redis.url, log }), createDraftStore({ redisUrl: redis.url, log })];
    await until(() => count("draft_store_ready") === 2);
    const id = await a.save(alice, draft);
    expect(await b.load(alice, id)).toEqual(draft);
    expect(await b.load(mallory, id)).toBeUndefined();
    expect(await b.save(alice, draft, id)).toBe(id);
    await b.delete(alice, id);
    expect(await a.load(alice, id)).toBeUndefined();
    await a.close();
    await b.close();
  });

  it("a draft deleted while Redis is away is deleted there as soon as it is back", async () => {
    // A Redis that keeps its data across a restart (AOF, every write), so the draft outlives the outage.
    const kept = await startRedis(undefined, ["--appendonly", "yes", "--appendfsync", "always", "--dir", mkdtempSync(join(tmpdir(), "drafts-aof-"))]);
    const { log, count } = recordingLog();
    const [a, b] = [createDraftStore({ redisUrl: kept.url, log }), createDraftStore({ redisUrl: kept.url, log })];
    try {
      await until(() => count("draft_store_ready") === 2);
      const id = await a.save(alice, draft);
      await kept.stop();
      await until(() => count("draft_store_down") === 2);
      await a.delete(alice, id); // sent while Redis is away
      await kept.restart();
      await until(() => count("draft_store_ready") === 4);
      await expect.poll(() => b.load(alice, id)).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
      await kept.stop();
    }
  });

  it("keeps drafts in memory while Redis is unreachable", async () => {
    const down = await startRedis();
    const { log, count } = recordingLog();
    const store = createDraftStore({ redisUrl: down.url, log });
    await until(() => count("draft_store_ready") === 1);
    await down.stop();
    await until(() => count("draft_store_down") === 1);
    const id = await store.save(alice, draft);
    expect(await store.load(alice, id)).toEqual(draft);
    expect(await store.load(mallory, id)).toBeUndefined();
    await store.close();
  });
});

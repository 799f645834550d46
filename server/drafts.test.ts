/** The draft store in memory and against a real redis-server (Debian's) on a free port. */
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toStep } from "~/calculator/draft.server";
import { next, parseState } from "~/calculator/rules";
import { toContactErrors } from "~/contact/draft.server";
import { visitorOwner } from "~/forms/visitor.server";
import { startRedis, type RedisServer } from "../tests/support/redis";
import { quietLog, recordingLog, until } from "../tests/support/quiet-log";
import { createDraftStore, DRAFT_MEMORY, DRAFT_TTL_SECONDS, RECORD_OVERHEAD } from "./drafts";
import { LIMITS } from "./rate-limits";

const draft = { fields: { "state.step": "5", "state.description": "d".repeat(5000) }, errors: { email: ["Please enter a valid email address"] } };
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

  it("answers undefined for unknown, malformed and expired ids, and lets an expired draft go from memory at its expiry", async ({ onTestFinished }) => {
    // The memory's clock is lru-cache's: performance.now, and a timer set for each record's expiry.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.spyOn(performance, "now").mockImplementation(() => Date.now());
    onTestFinished(() => {
      vi.useRealTimers();
      vi.restoreAllMocks();
    });
    const store = createDraftStore({ log: quietLog, ttlSeconds: 0.05 });
    const id = await store.save(alice, draft);
    for (const other of ["A".repeat(22), "../../etc/passwd", "", `${id}x`]) expect(await store.load(alice, other)).toBeUndefined();
    expect(store.size).toBe(1);
    await vi.advanceTimersByTimeAsync(51); // lru-cache's purge timer: the ttl and 1 ms
    // Purged without being looked up: the text does not outlive the lifetime the notice states.
    expect(store.size).toBe(0);
    expect(await store.load(alice, id)).toBeUndefined();
  });

  it("stays within its size bound, dropping the oldest", async () => {
    const store = createDraftStore({ log: quietLog, maxMemory: 30_000 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await store.save(alice, draft));
    expect(await store.load(alice, ids[0]!)).toBeUndefined();
    expect(await store.load(alice, ids[9]!)).toEqual(draft);
  });
});

/** 20 clients × 10 maximum-size drafts, then what the honest client's draft and receipt load as. */
async function flood(store: ReturnType<typeof createDraftStore>) {
  const honest = store.forClient("ip:192.0.2.1");
  const [kept, receipt] = [await honest.save(alice, draft), await honest.save(alice, { reference: "KD-1" })];
  for (let round = 0; round < 10; round++) for (let client = 0; client < 20; client++) await store.forClient(`ip:198.51.100.${client}`).save(mallory, draft);
  return [await store.load(alice, kept), await store.load(alice, receipt)];
}

describe("in memory, charged per client", () => {
  it("over budget, the client charged the most loses its oldest record: a flood from 20 clients keeps an honest one's draft and receipt", async () => {
    const store = createDraftStore({ log: quietLog, maxMemory: 200_000 });
    expect(await flood(store)).toEqual([draft, { reference: "KD-1" }]);
    expect(store.bytes).toBeLessThanOrEqual(200_000);
    expect(store.size).toBeGreaterThan(2);
  });
});

describe("what the forms keep", () => {
  // One client at the post limit for a draft's lifetime, every post a new draft (a new cookie each
  // time): the budget holds them all, so one client alone never makes the store evict (decision 0034).
  const perClient = (LIMITS.posts.points * DRAFT_TTL_SECONDS) / LIMITS.posts.duration;
  const post = () => new Request("http://localhost/?index", { method: "POST" });

  /** The record a form's redirect points at, as its own browser loads it, and that record's size. */
  async function keptBy(context: AppLoadContext, answer: Response, param: string) {
    const page = new URL(answer.headers.get("Location")!, "http://localhost");
    const owner = await visitorOwner(new Request(page, { headers: { cookie: answer.headers.get("Set-Cookie")!.split(";")[0]! } }));
    const kept = await context.drafts.load(owner, page.searchParams.get(param)!);
    return { kept, size: JSON.stringify(kept).length };
  }

  it("a calculator step keeps a text too long for the visitor to shorten, up to half again its bound, so one client cannot crowd the store", async () => {
    const context = { drafts: createDraftStore({ log: quietLog }) } as unknown as AppLoadContext;
    const step4 = { "state.step": "4", "state.service": "seo", "state.timeframe": "urgent", "state.complexity": "complex" };
    // A paste a little too long (no box cuts one): kept whole, with how long it is.
    const over = { ...step4, description: `${"x".repeat(7_000)}${"🙂".repeat(250)}` };
    const some = await keptBy(context, await toStep(post(), context, next(parseState(over), over), undefined), "draft");
    expect(some.kept).toMatchObject({
      fields: { "state.step": "4", "state.description": over.description },
      errors: { description: ["Description must be at most 5,000 characters; this one has 7,250"] },
    });
    expect(some.size * perClient).toBeLessThan(DRAFT_MEMORY);
    // Far too long: not kept, and its message says so.
    const far = { ...step4, description: "x".repeat(60_000), "state.name": "n".repeat(60_000) };
    const { kept, size } = await keptBy(context, await toStep(post(), context, next(parseState(far), far), undefined), "draft");
    expect(kept).toMatchObject({
      fields: { "state.step": "4" },
      errors: { description: ["Description must be at most 5,000 characters; this one has 60,000, too many to keep here"] },
    });
    expect(JSON.stringify(kept)).not.toContain("xxxxxxxxxx");
    expect(JSON.stringify(kept)).not.toContain("nnnnnnnnnn");
    expect(size * perClient).toBeLessThan(DRAFT_MEMORY);
  });

  it("a contact form's mistakes keep a text too long up to half again its bound, and no service not offered", async () => {
    const context = { drafts: createDraftStore({ log: quietLog }) } as unknown as AppLoadContext;
    const values = { name: "Ann", email: "ann@", service: "s".repeat(20_000), message: "x".repeat(40_000) };
    const errors = { email: ["Please enter a valid email address"], message: ["Message must be at most 5,000 characters; this one has 40,000"] };
    const { kept, size } = await keptBy(context, await toContactErrors(post(), context, values, errors, undefined, "x".repeat(60_000)), "contact");
    expect(kept).toEqual({
      values: { name: "Ann", email: "ann@", service: "", message: "" },
      errors: { ...errors, message: ["Message must be at most 5,000 characters; this one has 40,000, too many to keep here"] },
    });
    expect(size * perClient).toBeLessThan(DRAFT_MEMORY);
    const whole = await keptBy(context, await toContactErrors(post(), context, { ...values, message: "y".repeat(7_500) }, errors, undefined, ""), "contact");
    expect(whole.kept).toMatchObject({ values: { message: "y".repeat(7_500) } });
    expect(whole.size * perClient).toBeLessThan(DRAFT_MEMORY);
    // A message the check takes is kept whole whatever its UTF-16 units: 4,000 emoji are 8,000.
    const emoji = await keptBy(context, await toContactErrors(post(), context, { ...values, message: "👋".repeat(4_000) }, errors, undefined, ""), "contact");
    expect(emoji.kept).toMatchObject({ values: { message: "👋".repeat(4_000) } });
    // The visit's landing is kept with them (the next post's Referer is the page of mistakes), when it could be one.
    const again = await keptBy(context, await toContactErrors(post(), context, values, errors, undefined, "newsletter/email/spring "), "contact");
    expect(again.kept).toMatchObject({ landing: "newsletter/email/spring " });
  });
});

describe("with Redis", () => {
  // Past production's 500 ms a command falls back to memory: a busy test machine must not look like that.
  const SLOW_OK = 5_000;
  let redis: RedisServer;
  beforeAll(async () => void (redis = await startRedis()));
  afterAll(() => redis.stop());

  it("one server's draft is loaded by another (its owner's only), with the store's expiry, and deleted for both", async () => {
    const { log, count } = recordingLog();
    const [a, b] = [
      createDraftStore({ redisUrl: redis.url, log, commandTimeoutMs: SLOW_OK }),
      createDraftStore({ redisUrl: redis.url, log, commandTimeoutMs: SLOW_OK }),
    ];
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
    const [a, b] = [
      createDraftStore({ redisUrl: kept.url, log, commandTimeoutMs: SLOW_OK }),
      createDraftStore({ redisUrl: kept.url, log, commandTimeoutMs: SLOW_OK }),
    ];
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

  it("on a Redis with maxmemory and noeviction, drafts keep within a quarter of it, and a flood from 20 clients keeps an honest one's draft and receipt", async () => {
    const small = await startRedis(undefined, ["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"]);
    const { log, count } = recordingLog();
    const store = createDraftStore({ redisUrl: small.url, log, commandTimeoutMs: SLOW_OK });
    const probe = new Redis(small.url);
    try {
      await until(() => count("draft_store_ready") === 1);
      await expect.poll(async () => (await flood(store))[0]).toEqual(draft); // once the budget is read from CONFIG
      expect(await flood(store)).toEqual([draft, { reference: "KD-1" }]);
      expect(Number(await probe.get("drafts:bytes"))).toBeLessThanOrEqual(1024 * 1024);
      expect(store.size, "nothing fell back to memory").toBe(0);
      // A deleted record's cost goes with it.
      const id = await store.forClient("ip:192.0.2.9").save(alice, draft);
      const charged = Number(await probe.get("drafts:bytes"));
      await store.delete(alice, id);
      expect(Number(await probe.get("drafts:bytes"))).toBe(charged - JSON.stringify(draft).length - RECORD_OVERHEAD);
    } finally {
      probe.disconnect();
      await store.close();
      await small.stop();
    }
  });

  it("keeps drafts in memory while Redis is unreachable", async () => {
    const down = await startRedis();
    const { log, count } = recordingLog();
    const store = createDraftStore({ redisUrl: down.url, log });
    try {
      await until(() => count("draft_store_ready") === 1);
      await down.stop();
      await until(() => count("draft_store_down") === 1);
      const id = await store.save(alice, draft);
      expect(await store.load(alice, id)).toEqual(draft);
      expect(await store.load(mallory, id)).toBeUndefined();
    } finally {
      await store.close();
      await down.stop();
    }
  });
});

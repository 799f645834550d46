/** The draft store on SQLite and on a real PostgreSQL (Debian's, a cluster of this file's own). */
import { createHash } from "node:crypto";
import type { AppLoadContext } from "@remix-run/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { calculatorAction } from "~/calculator/action.server";
import { toContactErrors } from "~/forms/draft.server";
import { visitorOwner } from "~/forms/visitor.server";
import { leadDatabases } from "../tests/support/engines";
import { quietLog, recordingLog } from "../tests/support/quiet-log";
import type { Db } from "./db";
import { createDraftStore, DRAFT_MEMORY, DRAFT_TTL_SECONDS, type DraftOptions, type Drafts } from "./drafts";
import { LIMITS } from "./rate-limits";

const draft = { fields: { "state.step": "5", "state.description": "d".repeat(5000) }, errors: { email: ["Please enter a valid email address"] } };
/** Owners as the app makes them: the SHA-256 of a browser's cookie token. */
const owner = (token: string) => createHash("sha256").update(token).digest("base64url");
const [alice, mallory] = [owner("alice"), owner("mallory")];

const { place, open, cluster } = leadDatabases();
const stores: Drafts[] = [];
afterEach(async () => {
  vi.useRealTimers();
  cluster().resume(); // should a test have failed with it paused
  for (const each of stores.splice(0)) await each.close(); // before their databases, closed once the test has ended
});
const sqlite = async () => open(await place("sqlite"));
const ENGINES = { sqlite, postgres: async () => open(await place("postgres")) };
// Past production's second a call falls back to memory: a busy test machine must not look like that.
const store = (db: Db, options: Partial<DraftOptions> = {}) => {
  const drafts = createDraftStore({ db, log: quietLog, waitMs: 10_000, ...options });
  stores.push(drafts);
  return drafts;
};
const rows = async (db: Db) => Number((await db.get("SELECT count(*) AS n FROM drafts"))?.n);

describe.each(Object.keys(ENGINES) as (keyof typeof ENGINES)[])("on %s", (engine) => {
  const database = ENGINES[engine];

  it("gives each save a fresh 22-character id and loads a copy of what was saved; saving with the id of the owner's earlier draft replaces it, any other id gets a fresh one", async () => {
    const drafts = store(await database());
    const [a, b] = [await drafts.save(alice, draft), await drafts.save(alice, draft)];
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    const loaded = await drafts.load(alice, a);
    expect(loaded).toEqual(draft);
    expect(loaded).not.toBe(draft);
    expect(await drafts.save(alice, { fields: {} }, a)).toBe(a);
    expect(await drafts.load(alice, a)).toEqual({ fields: {} });
    for (const other of ["not-an-id", "A".repeat(22)]) {
      const fresh = await drafts.save(alice, draft, other);
      expect(fresh).not.toBe(other);
      expect(await drafts.load(alice, fresh)).toEqual(draft);
    }
  });

  it("a draft is its owner's alone: another owner can neither load, replace nor delete it, nor adopt its id", async () => {
    const drafts = store(await database());
    const id = await drafts.save(alice, draft);
    expect(await drafts.load(mallory, id)).toBeUndefined();
    expect(await drafts.load(undefined, id)).toBeUndefined();
    const theirs = await drafts.save(mallory, { fields: { "state.email": "mallory@evil.example" } }, id);
    expect(theirs).not.toBe(id);
    await drafts.delete(mallory, id);
    expect(await drafts.load(alice, id)).toEqual(draft);
    // …and the other way round: the maker of a link cannot make a visitor save under its id.
    expect(await drafts.save(alice, draft, theirs)).not.toBe(theirs);
    expect(await drafts.load(mallory, theirs)).toEqual({ fields: { "state.email": "mallory@evil.example" } });
    await drafts.delete(alice, id);
    expect(await drafts.load(alice, id)).toBeUndefined();
  });

  it("answers undefined for unknown, malformed and expired ids; an expired draft is deleted by the next sweep, unread", async () => {
    // The store's clock (Date) and its sweep's timer; the database's own timers stay real.
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const db = await database();
    const drafts = store(db, { ttlSeconds: 60 });
    const id = await drafts.save(alice, draft);
    for (const other of ["A".repeat(22), "../../etc/passwd", "", `${id}x`]) expect(await drafts.load(alice, other)).toBeUndefined();
    expect(await drafts.load(alice, id)).toEqual(draft);
    vi.setSystemTime(Date.now() + 60_000);
    expect(await drafts.load(alice, id)).toBeUndefined();
    expect(await rows(db)).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000);
    // Deleted without being looked up: the text does not outlive the lifetime the notice states.
    await expect.poll(() => rows(db)).toBe(0);
  });

  it("stays within its budget, dropping the oldest", async () => {
    const drafts = store(await database(), { maxMemory: 30_000 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await drafts.save(alice, draft));
    expect(await drafts.load(alice, ids[0]!)).toBeUndefined();
    expect(await drafts.load(alice, ids[9]!)).toEqual(draft);
  });

  it("over budget, the client charged the most loses its oldest record: a flood from 20 clients keeps an honest one's draft and receipt", async () => {
    const db = await database();
    const drafts = store(db, { maxMemory: 200_000 });
    const honest = drafts.forClient("ip:192.0.2.1");
    const [kept, receipt] = [await honest.save(alice, draft), await honest.save(alice, { reference: "KD-1" })];
    for (let round = 0; round < 10; round++) for (let client = 0; client < 20; client++) await drafts.forClient(`ip:198.51.100.${client}`).save(mallory, draft);
    expect([await drafts.load(alice, kept), await drafts.load(alice, receipt)]).toEqual([draft, { reference: "KD-1" }]);
    expect(Number((await db.get("SELECT sum(cost) AS bytes FROM drafts"))?.bytes)).toBeLessThanOrEqual(200_000);
    expect(await rows(db)).toBeGreaterThan(20);
  });
});

describe("on PostgreSQL, shared by containers", () => {
  it("while PostgreSQL does not answer, a step's draft is kept in memory, its owner's only; once it answers, drafts are shared again", async () => {
    const { log, count } = recordingLog();
    const where = await place("postgres"); // two opened on it are two containers
    // Production's wait: past it, the memory.
    const [a, b] = [store(open(where), { log, waitMs: 1_000 }), store(open(where))];
    await a.save(alice, draft); // the table made, a connection open
    await cluster().pause();
    const id = await a.save(alice, { fields: { "state.step": "3" } });
    expect(await a.load(alice, id)).toEqual({ fields: { "state.step": "3" } });
    expect(await a.load(mallory, id)).toBeUndefined();
    expect(count("draft_store_failed")).toBe(1);
    cluster().resume();
    await expect.poll(async () => b.load(alice, await a.save(alice, draft)), { timeout: 15_000 }).toEqual(draft);
    expect(count("draft_store_back")).toBeGreaterThan(0);
  });

  it("saves over budget at once from two containers neither deadlock nor leave it over budget: each evicts a record no other is evicting", async () => {
    const { log, count } = recordingLog();
    const where = await place("postgres");
    const containers = [store(open(where), { log, maxMemory: 100_000 }), store(open(where), { log, maxMemory: 100_000 })];
    const reader = open(where);
    const charged = async () => Number((await reader.get("SELECT sum(cost) AS bytes FROM drafts"))?.bytes);
    for (let round = 0; round < 20; round++) {
      await Promise.all(Array.from({ length: 16 }, (_, i) => containers[i % 2]!.forClient(`ip:198.51.100.${i % 8}`).save(mallory, draft)));
      expect(await charged(), `after round ${round}`).toBeLessThanOrEqual(100_000);
    }
    expect(count("draft_store_failed"), "a save failed (PostgreSQL found a deadlock)").toBe(0);
  });

  it("a draft deleted while PostgreSQL is down is deleted there by the next sweep once it is back", async () => {
    const where = await place("postgres");
    const [a, b] = [store(open(where), { waitMs: 1_000 }), store(open(where))];
    const id = await a.save(alice, draft);
    await cluster().kill();
    await a.delete(alice, id); // the request was sent meanwhile
    expect(await a.load(alice, id)).toBeUndefined();
    const kept = await a.save(alice, { reference: "KD-2" }); // in memory
    expect(await a.load(alice, kept)).toEqual({ reference: "KD-2" });
    await cluster().restart();
    // The sweep runs every 10 s.
    await expect.poll(() => b.load(alice, id), { timeout: 25_000, interval: 500 }).toBeUndefined();
  }, 60_000);
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
    const context = { drafts: store(await sqlite()), sources: { names: new Set(), sites: [] }, countVisit: async () => undefined } as unknown as AppLoadContext;
    const step = (fields: Record<string, string>) => calculatorAction(post(), fields, context);
    const step4 = { "state.step": "4", "state.service": "seo", "state.timeframe": "urgent", "state.complexity": "complex" };
    // A paste a little too long (no box cuts one): kept whole, with how long it is.
    const over = { ...step4, description: `${"x".repeat(7_000)}${"🙂".repeat(250)}` };
    const some = await keptBy(context, await step(over), "draft");
    const tooLong = "Description must be at most 5,000 characters; this one has";
    expect(some.kept).toMatchObject({ fields: { "state.step": "4", "state.description": over.description }, errors: { description: [`${tooLong} 7,250`] } });
    expect(some.size * perClient).toBeLessThan(DRAFT_MEMORY);
    // Far too long: not kept, and its message says so.
    const far = { ...step4, description: "x".repeat(60_000), "state.name": "n".repeat(60_000) };
    const { kept, size } = await keptBy(context, await step(far), "draft");
    expect(kept).toMatchObject({ fields: { "state.step": "4" }, errors: { description: [`${tooLong} 60,000, too many to keep here`] } });
    expect(JSON.stringify(kept)).not.toMatch(/xxxxxxxxxx|nnnnnnnnnn/);
    expect(size * perClient).toBeLessThan(DRAFT_MEMORY);
  });

  it("a contact form's mistakes keep a text too long up to half again its bound, and no service not offered", async () => {
    const context = { drafts: store(await sqlite()) } as unknown as AppLoadContext;
    const values = { name: "Ann", email: "ann@", service: "s".repeat(20_000), message: "x".repeat(40_000) };
    const errors = { email: ["Please enter a valid email address"], message: ["Message must be at most 5,000 characters; this one has 40,000"] };
    const { kept, size } = await keptBy(context, await toContactErrors(post(), context, values, errors, undefined, "x".repeat(60_000)), "contact");
    const message = ["Message must be at most 5,000 characters; this one has 40,000, too many to keep here"];
    expect(kept).toEqual({ values: { name: "Ann", email: "ann@", service: "", message: "" }, errors: { ...errors, message } });
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

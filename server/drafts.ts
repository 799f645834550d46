/**
 * A visitor's drafts and receipts (decision 0020), only for their owner (the browser's cookie's hash), in the lead
 * store's database so any container renders them. Over the budget, the client charged the most loses its oldest
 * (decision 0034). While the database fails or is slow, memory keeps them: a draft is worth less than a visitor's wait.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as pause } from "node:timers/promises";
import { LRUCache } from "lru-cache";
import { DRAFT_LIFETIME_MINUTES } from "~/content/privacy";
import type { DraftStore } from "~/context";
import { preparedOnce, type Db } from "./db";
import type { Logger } from "./log";

export const DRAFT_TTL_SECONDS = DRAFT_LIFETIME_MINUTES * 60;
/** In characters of JSON, plus RECORD_OVERHEAD a record (a full draft is about 6,000). */
export const DRAFT_MEMORY = 16 * 1024 * 1024;
/** The row's other columns and two index entries, counted generously. */
const RECORD_OVERHEAD = 600;
/** 16 random bytes and a SHA-256, base64url. */
const [ID, OWNER] = [/^[A-Za-z0-9_-]{22}$/, /^[A-Za-z0-9_-]{43}$/];
const cost = (name: string, json: string) => json.length + name.length + RECORD_OVERHEAD;

/** `name`: owner:id. */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS drafts (
  name TEXT PRIMARY KEY, json TEXT NOT NULL, client TEXT NOT NULL, cost {int} NOT NULL, saved_at {int} NOT NULL, expires_at {int} NOT NULL
){strict}`,
  // With cost, the budget's sums read the index alone, not every record's JSON.
  "CREATE INDEX IF NOT EXISTS drafts_by_client ON drafts (client, saved_at, cost)",
  "CREATE INDEX IF NOT EXISTS drafts_by_expiry ON drafts (expires_at)",
];
// Exclusive: two containers creating one table at once fail on PostgreSQL.
const prepare = (db: Db) =>
  db.transaction(
    async (tx) => {
      for (const sql of SCHEMA) await tx.run(sql);
    },
    { exclusive: true },
  );

const SAVE = `INSERT INTO drafts (name, json, client, cost, saved_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET json = excluded.json, client = excluded.client, cost = excluded.cost, saved_at = excluded.saved_at, expires_at = excluded.expires_at`;
const EVICT = `DELETE FROM drafts WHERE name = (
  SELECT name FROM drafts WHERE client = (SELECT client FROM drafts GROUP BY client ORDER BY sum(cost) DESC LIMIT 1) ORDER BY saved_at, name LIMIT 1
)`;
const LOAD = "SELECT json FROM drafts WHERE name = ? AND expires_at > ?";
const ERASE = "DELETE FROM drafts WHERE name = ?";
const EXPIRED = "DELETE FROM drafts WHERE expires_at <= ?";

/** For the operator's `find` and `erase`: what the database holds (a server's memory is out of reach). */
export function draftsIn(db: Db) {
  return {
    async records(): Promise<{ name: string; value: unknown; ttlMs: number }[]> {
      await prepare(db);
      const now = Date.now();
      const rows = await db.all("SELECT name, json, expires_at FROM drafts WHERE expires_at > ?", [now]);
      return rows.map((row) => ({ name: String(row.name), value: JSON.parse(String(row.json)) as unknown, ttlMs: Number(row.expires_at) - now }));
    },
    erase: async (name: string) => void (await prepare(db), await db.run(ERASE, [name])),
  };
}

/** `maxMemory`: the budget (a quarter of it in memory while the database fails); `waitMs`: the wait before memory. */
export type DraftOptions = { db: Db; log: Pick<Logger, "info" | "warn">; ttlSeconds?: number; maxMemory?: number; waitMs?: number };

/** What a request saves through `forClient` is charged to that client. */
export type Drafts = DraftStore & { forClient(client: string): DraftStore; close(): Promise<void> };

const FAILED = Symbol("failed");

export function createDraftStore({ db, log, ttlSeconds = DRAFT_TTL_SECONDS, maxMemory = DRAFT_MEMORY, waitMs = 1_000 }: DraftOptions): Drafts {
  // Saved while the database failed (not charged per client: the post limit bounds an outage's), and deletions it
  // missed, which the next sweep does: a sent request's answers must not wait out their lifetime.
  const memory = new LRUCache<string, string>({
    maxSize: Math.ceil(maxMemory / 4),
    sizeCalculation: (json, name) => cost(name, json),
    ttl: ttlSeconds * 1000,
    ttlAutopurge: true,
  });
  const undeleted = new LRUCache<string, true>({ max: 10_000, ttl: ttlSeconds * 1000 });

  const ready = preparedOnce(() => prepare(db));
  let failing = false;
  /** FAILED when the database failed or did not answer within waitMs (said once, until it answers again). */
  async function answered<T>(work: () => Promise<T>): Promise<T | typeof FAILED> {
    const late = pause(waitMs, undefined, { ref: false }).then(() => Promise.reject(new Error(`no answer within ${waitMs} ms`)));
    try {
      const result = await Promise.race([ready().then(work), late]);
      if (failing) log.info({}, "draft_store_back");
      failing = false;
      return result;
    } catch (error) {
      if (!failing) log.warn({ err: error, fallback: "memory" }, "draft_store_failed");
      failing = true;
      return FAILED;
    }
  }

  // One transaction: the expired go, the save, then evictions while over budget. One save at a time across containers,
  // so two never evict for each other.
  const write = (name: string, json: string, client: string) =>
    db.transaction(
      async (tx) => {
        const now = Date.now();
        await tx.run(EXPIRED, [now]);
        await tx.run(SAVE, [name, json, client, cost(name, json), now, now + ttlSeconds * 1000]);
        const charged = async () => Number((await tx.get("SELECT coalesce(sum(cost), 0) AS bytes FROM drafts"))?.bytes);
        while ((await charged()) > maxMemory && (await tx.run(EVICT)) > 0);
      },
      { exclusive: "drafts" },
    );
  async function read(name: string): Promise<string | undefined> {
    const row = await answered(() => db.get(LOAD, [name, Date.now()]));
    return (row === FAILED ? undefined : (row?.json as string | undefined)) ?? memory.get(name);
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  async function sweep() {
    await db.run(EXPIRED, [Date.now()]);
    for (const name of [...undeleted.keys()]) {
      await db.run(ERASE, [name]);
      undeleted.delete(name);
    }
  }
  // A load never returns an expired record; the sweep deletes it unread.
  const sweeper = setInterval(() => (sweeping = answered(sweep)), Math.min(10_000, ttlSeconds * 1000)).unref();

  const key = (owner: string, id: string) => `${owner}:${id}`;
  const valid = (owner: string, id: string) => OWNER.test(owner) && ID.test(id);
  const view = (client: string): DraftStore => ({
    async save(owner, value, existing) {
      if (!OWNER.test(owner)) throw new Error("a draft needs its owner");
      // An earlier id is kept only if this owner's record still has it.
      const reuse = existing !== undefined && valid(owner, existing) && (await read(key(owner, existing))) !== undefined;
      const id = reuse ? existing : randomBytes(16).toString("base64url");
      const [name, json] = [key(owner, id), JSON.stringify(value)];
      if ((await answered(() => write(name, json, client))) === FAILED) memory.set(name, json);
      else memory.delete(name); // a copy kept while the database failed would outlive this one
      return id;
    },
    async load(owner, id) {
      if (owner === undefined || !valid(owner, id)) return undefined;
      const json = await read(key(owner, id));
      return json === undefined ? undefined : (JSON.parse(json) as unknown);
    },
    async delete(owner, id) {
      if (owner === undefined || !valid(owner, id)) return;
      memory.delete(key(owner, id));
      if ((await answered(() => db.run(ERASE, [key(owner, id)]))) === FAILED) undeleted.set(key(owner, id), true);
    },
  });

  return {
    ...view("unknown"),
    forClient: view,
    async close() {
      clearInterval(sweeper);
      await sweeping;
    },
  };
}

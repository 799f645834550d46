/**
 * Short-lived records a visitor's own pages need between requests (docs/decisions/0016, 0020): the
 * calculator's steps without JavaScript, and the receipt that shows a sent request's reference.
 * Every record belongs to one browser: it is kept under the owner (a hash of that browser's
 * cookie, app/forms/visitor.server.ts) and its own random id, and only that owner can load,
 * replace or delete it, so a link made by someone else never reaches a visitor's answers.
 * In memory by default; with REDIS_URL in Redis, so any container renders any record, and in
 * memory again while Redis is unreachable (a draft is worth less than a visitor's wait).
 *
 * Both keep within a budget that nothing a visitor posts can exceed, charged to the client that
 * made each record (its rate-limit bucket): over budget, the client holding the most loses its
 * oldest record, so a flood evicts the flooders' drafts and never an honest visitor's, and never
 * pushes the lead queue out of Redis (decision 0034).
 */
import { randomBytes } from "node:crypto";
import type { Redis, Result } from "ioredis";
import { LRUCache } from "lru-cache";
import { DRAFT_LIFETIME_MINUTES } from "~/content/privacy";
import type { DraftStore } from "~/context";
import type { Logger } from "./log";
import { onReady, requestConnection, watchRedis } from "./redis";

/** How long a record lives after its last save: the privacy notice states it. */
export const DRAFT_TTL_SECONDS = DRAFT_LIFETIME_MINUTES * 60;
/** The budget, in bytes of JSON plus each record's overhead: in memory, and in Redis at most (a quarter of its maxmemory when less). */
export const DRAFT_MEMORY = 16 * 1024 * 1024;
/** What a record costs beyond its JSON: in Redis its key, expiry and index entries (measured: decision 0034). */
export const RECORD_OVERHEAD = 600;
/** The bucket of records saved with no client named (the store used directly). */
const NO_CLIENT = "unknown";
/** 16 random bytes, base64url: 22 characters nobody can guess. */
const ID = /^[A-Za-z0-9_-]{22}$/;
/** An owner is a SHA-256, base64url. */
const OWNER = /^[A-Za-z0-9_-]{43}$/;

/**
 * Saves a record charged to a client, then evicts while over budget: the oldest record of the
 * client charged the most. `drafts:meta` names each record's client and cost, `drafts:client:<c>`
 * its records by age, `drafts:usage` each client's total, `drafts:bytes` the sum. A record that
 * expired stays charged until it is evicted like any other (it is the oldest of its client), so
 * the index too stays within the budget.
 * KEYS: none (the keys depend on the clients). ARGV: name, json, client, ttl seconds, budget, overhead.
 */
const SAVE = `
local function uncharge(name)
  local meta = redis.call('HGET', 'drafts:meta', name)
  if not meta then return end
  local client, cost = string.match(meta, '^(.*) (%d+)$')
  redis.call('HDEL', 'drafts:meta', name)
  redis.call('ZREM', 'drafts:client:' .. client, name)
  if tonumber(redis.call('ZINCRBY', 'drafts:usage', -cost, client)) <= 0 then redis.call('ZREM', 'drafts:usage', client) end
  redis.call('DECRBY', 'drafts:bytes', cost)
end
local name, json, client = ARGV[1], ARGV[2], ARGV[3]
local budget, cost = tonumber(ARGV[5]), #ARGV[2] + tonumber(ARGV[6])
if ARGV[4] == '0' then
  redis.call('DEL', 'draft:' .. name)
  uncharge(name)
  return 0
end
uncharge(name)
local now = redis.call('TIME')
redis.call('SET', 'draft:' .. name, json, 'EX', ARGV[4])
redis.call('HSET', 'drafts:meta', name, client .. ' ' .. cost)
redis.call('ZADD', 'drafts:client:' .. client, now[1] * 1000000 + now[2], name)
redis.call('ZINCRBY', 'drafts:usage', cost, client)
local total = redis.call('INCRBY', 'drafts:bytes', cost)
local evicted = 0
while total > budget do
  local top = redis.call('ZREVRANGE', 'drafts:usage', 0, 0)[1]
  if not top then break end
  local victim = redis.call('ZRANGE', 'drafts:client:' .. top, 0, 0)[1]
  if victim then
    redis.call('DEL', 'draft:' .. victim)
    uncharge(victim)
    evicted = evicted + 1
  else
    -- an index key lost (a Redis that evicts after all): forget that client's charge
    redis.call('DECRBY', 'drafts:bytes', math.floor(tonumber(redis.call('ZSCORE', 'drafts:usage', top))))
    redis.call('ZREM', 'drafts:usage', top)
  end
  total = tonumber(redis.call('GET', 'drafts:bytes'))
end
return evicted
`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    /** SAVE above; a ttl of "0" deletes the record instead. */
    draftSave(name: string, json: string, client: string, ttl: string, budget: string, overhead: string): Result<number, Context>;
  }
}

/**
 * The records Redis holds, for the operator's `find` and `erase` (server/leads/personal-data.ts):
 * each one's name (owner:id), what it holds and its time left. `erase` deletes one as the store
 * does, taking its cost off its client's budget. A record a server kept in its own memory (no
 * REDIS_URL, or Redis away) is out of reach here: it lives until its expiry.
 */
export function draftsInRedis(redis: Redis) {
  redis.defineCommand("draftSave", { numberOfKeys: 0, lua: SAVE });
  return {
    async records(): Promise<{ name: string; value: unknown; ttlMs: number }[]> {
      const records: { name: string; value: unknown; ttlMs: number }[] = [];
      for await (const keys of redis.scanStream({ match: "draft:*", count: 500 }) as AsyncIterable<string[]>) {
        if (keys.length === 0) continue;
        const multi = redis.multi();
        for (const key of keys) multi.get(key).pttl(key);
        const answers = (await multi.exec()) ?? [];
        keys.forEach((key, i) => {
          const [json, ttl] = [answers[i * 2]?.[1], answers[i * 2 + 1]?.[1]];
          if (typeof json !== "string") return; // expired or deleted since the scan
          try {
            records.push({ name: key.slice("draft:".length), value: JSON.parse(json) as unknown, ttlMs: Number(ttl) });
          } catch {
            // not a record this store wrote
          }
        });
      }
      return records;
    },
    erase: async (name: string) => void (await redis.draftSave(name, "", NO_CLIENT, "0", "0", "0")),
  };
}

export interface DraftOptions {
  redisUrl?: string | undefined;
  log: Pick<Logger, "info" | "warn">;
  ttlSeconds?: number;
  /** The budget in memory (and in Redis at most), in characters of JSON plus RECORD_OVERHEAD a record (a full draft, every box filled, is about 6,000). */
  maxMemory?: number;
  /** How long a Redis command may take before the store falls back to memory for it. */
  commandTimeoutMs?: number;
}

/** The store, and per client the view a request gets: what it saves is charged to that client. */
export type Drafts = DraftStore & { forClient(client: string): DraftStore; close(): Promise<void>; readonly size: number; readonly bytes: number };

/** Records in memory, each charged to its client; over budget, the client charged the most loses its oldest. */
function fairMemory(budget: number, ttlSeconds: number) {
  type Kept = { json: string; client: string; cost: number };
  // Each client's records, oldest first (a Set keeps insertion order), and what they cost.
  const clients = new Map<string, { bytes: number; names: Set<string> }>();
  let bytes = 0;
  // ttlAutopurge: an expired record leaves memory at its expiry, not when next looked up; however a
  // record goes (expiry, deletion, eviction), dispose takes its cost off its client.
  const records = new LRUCache<string, Kept>({
    ttl: ttlSeconds * 1000,
    ttlAutopurge: true,
    dispose: ({ client, cost }, name) => {
      const held = clients.get(client)!;
      held.names.delete(name);
      held.bytes -= cost;
      bytes -= cost;
      if (held.names.size === 0) clients.delete(client);
    },
  });
  const largest = () => [...clients.values()].reduce((a, b) => (b.bytes > a.bytes ? b : a));
  return {
    get: (name: string) => records.get(name)?.json,
    delete: (name: string) => void records.delete(name),
    set(name: string, json: string, client: string) {
      records.delete(name); // its old cost goes before the new one is charged
      const cost = json.length + name.length + RECORD_OVERHEAD;
      records.set(name, { json, client, cost });
      const held = clients.get(client) ?? { bytes: 0, names: new Set<string>() };
      clients.set(client, held);
      held.names.add(name);
      held.bytes += cost;
      bytes += cost;
      while (bytes > budget) records.delete(largest().names.values().next().value!);
    },
    get size() {
      return records.size;
    },
    get bytes() {
      return bytes;
    },
  };
}

export function createDraftStore({ redisUrl, log, ttlSeconds = DRAFT_TTL_SECONDS, maxMemory = DRAFT_MEMORY, commandTimeoutMs = 500 }: DraftOptions): Drafts {
  const memory = fairMemory(maxMemory, ttlSeconds);
  const shared = redisUrl ? requestConnection(redisUrl, commandTimeoutMs) : undefined;
  const redis = shared && watchRedis(shared.connection, log, { event: "draft_store", fields: { store: "redis" }, fallback: "memory" });
  redis?.defineCommand("draftSave", { numberOfKeys: 0, lua: SAVE });
  // In Redis the budget is also at most a quarter of its maxmemory, so the lead queue keeps the rest.
  let redisBudget = maxMemory;
  if (redis)
    onReady(redis, () => {
      redis.config("GET", "maxmemory").then(
        (answer) => {
          const limit = Number((answer as string[])[1]);
          redisBudget = limit > 0 ? Math.min(maxMemory, Math.floor(limit / 4)) : maxMemory;
        },
        () => undefined, // a Redis that refuses CONFIG: the budget alone
      );
    });
  const key = (owner: string, id: string) => `${owner}:${id}`;
  const valid = (owner: string, id: string) => OWNER.test(owner) && ID.test(id);
  // Deletions Redis missed while away (a request sent meanwhile), done as soon as it answers
  // again: a sent request's answers must not wait out their hour there. Bounded like the memory store.
  const undeleted = new LRUCache<string, true>({ max: 10_000, ttl: ttlSeconds * 1000 });
  async function deleteMissed() {
    const names = [...undeleted.keys()];
    if (!redis || names.length === 0) return;
    await Promise.all(names.map((name) => redis.draftSave(name, "", NO_CLIENT, "0", "0", "0")));
    for (const name of names) undeleted.delete(name);
  }
  if (redis) onReady(redis, () => void deleteMissed().catch(() => undefined));

  async function read(name: string): Promise<string | undefined> {
    const json = await redis?.get(`draft:${name}`).catch(() => undefined);
    return json ?? memory.get(name);
  }

  const view = (client: string): DraftStore => ({
    async save(owner, value, existing) {
      if (!OWNER.test(owner)) throw new Error("a draft needs its owner");
      // An earlier id is kept only if this owner's record still has it; anything else gets a new one.
      const reuse = existing !== undefined && valid(owner, existing) && (await read(key(owner, existing))) !== undefined;
      const id = reuse ? existing : randomBytes(16).toString("base64url");
      const json = JSON.stringify(value);
      try {
        if (!redis) throw new Error("no redis");
        await deleteMissed();
        await redis.draftSave(key(owner, id), json, client, String(ttlSeconds), String(redisBudget), String(RECORD_OVERHEAD));
        memory.delete(key(owner, id)); // a copy kept while Redis was away would outlive this one
      } catch {
        memory.set(key(owner, id), json, client);
      }
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
      if (!redis) return;
      undeleted.set(key(owner, id), true);
      await deleteMissed().catch(() => undefined);
    },
  });

  return {
    ...view(NO_CLIENT),
    forClient: view,
    get size() {
      return memory.size;
    },
    get bytes() {
      return memory.bytes;
    },
    close: async () => void (await shared?.release()),
  };
}

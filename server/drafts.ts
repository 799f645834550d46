/**
 * Short-lived records a visitor's own pages need between requests (docs/decisions/0016, 0020): the
 * calculator's steps without JavaScript, and the receipt that shows a sent request's reference.
 * Every record belongs to one browser: it is kept under the owner (a hash of that browser's
 * cookie, app/forms/visitor.server.ts) and its own random id, and only that owner can load,
 * replace or delete it, so a link made by someone else never reaches a visitor's answers.
 * In memory by default (lru-cache, bounded by size, purged at expiry); with REDIS_URL in Redis,
 * so any container renders any record, and in memory again while Redis is unreachable (a draft
 * is worth less than a visitor's wait).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { DRAFT_LIFETIME_MINUTES } from "~/content/privacy";
import type { DraftStore } from "~/context";
import type { Logger } from "./log";
import { watchRedis } from "./redis-watch";

/** How long a record lives after its last save: the privacy notice states it. */
export const DRAFT_TTL_SECONDS = DRAFT_LIFETIME_MINUTES * 60;
/** The in-memory store's default bound, in UTF-16 code units of JSON. */
export const DRAFT_MEMORY = 16 * 1024 * 1024;
/** 16 random bytes, base64url: 22 characters nobody can guess. */
const ID = /^[A-Za-z0-9_-]{22}$/;
/** An owner is a SHA-256, base64url. */
const OWNER = /^[A-Za-z0-9_-]{43}$/;

export interface DraftOptions {
  redisUrl?: string | undefined;
  log: Pick<Logger, "info" | "warn">;
  ttlSeconds?: number;
  /** The in-memory store's bound, in UTF-16 code units of JSON (a full draft, every box filled, is about 6,000). */
  maxMemory?: number;
  /** How long a Redis command may take before the store falls back to memory for it. */
  commandTimeoutMs?: number;
}

export function createDraftStore({
  redisUrl,
  log,
  ttlSeconds = DRAFT_TTL_SECONDS,
  maxMemory = DRAFT_MEMORY,
  commandTimeoutMs = 500,
}: DraftOptions): DraftStore & { close(): Promise<void>; readonly size: number } {
  // ttlAutopurge: an expired record leaves memory at its expiry, not when next looked up.
  const memory = new LRUCache<string, string>({
    maxSize: maxMemory,
    sizeCalculation: (json, key) => json.length + key.length,
    ttl: ttlSeconds * 1000,
    ttlAutopurge: true,
  });
  const redis = redisUrl
    ? watchRedis(new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs }), log, {
        event: "draft_store",
        fields: { store: "redis" },
        fallback: "memory",
      })
    : undefined;
  const key = (owner: string, id: string) => `${owner}:${id}`;
  const valid = (owner: string, id: string) => OWNER.test(owner) && ID.test(id);
  // Deletions Redis missed while away (a request sent meanwhile), done as soon as it answers
  // again: a sent request's answers must not wait out their hour there. Bounded like the memory store.
  const undeleted = new LRUCache<string, true>({ max: 10_000, ttl: ttlSeconds * 1000 });
  async function deleteMissed() {
    const names = [...undeleted.keys()];
    if (!redis || names.length === 0) return;
    await redis.del(...names.map((name) => `draft:${name}`));
    for (const name of names) undeleted.delete(name);
  }
  redis?.on("ready", () => void deleteMissed().catch(() => undefined));

  async function read(name: string): Promise<string | undefined> {
    let json: string | null | undefined;
    try {
      json = await redis?.get(`draft:${name}`);
    } catch {
      json = undefined;
    }
    return json ?? memory.get(name);
  }

  return {
    async save(owner, value, existing) {
      if (!OWNER.test(owner)) throw new Error("a draft needs its owner");
      // An earlier id is kept only if this owner's record still has it; anything else gets a new one.
      const reuse = existing !== undefined && valid(owner, existing) && (await read(key(owner, existing))) !== undefined;
      const id = reuse ? existing : randomBytes(16).toString("base64url");
      const json = JSON.stringify(value);
      try {
        if (!redis) throw new Error("no redis");
        await deleteMissed();
        await redis.set(`draft:${key(owner, id)}`, json, "EX", ttlSeconds);
        memory.delete(key(owner, id)); // a copy kept while Redis was away would outlive this one
      } catch {
        memory.set(key(owner, id), json);
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
    get size() {
      return memory.size;
    },
    close: async () => void (await redis?.quit().catch(() => redis.disconnect())),
  };
}

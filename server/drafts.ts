/**
 * The calculator's drafts between steps for visitors without JavaScript (docs/decisions/0016):
 * each step's post is kept here under a random id and answered with a redirect to `/?draft=<id>`,
 * so Back and reload are plain GETs. The answers (up to 5,000 characters of description, and
 * contact details) stay off URLs, history and logs. In memory by default (lru-cache: an hour,
 * bounded by size); with REDIS_URL in Redis, so any container renders any draft, and in memory
 * again while Redis is unreachable (a draft is worth less than a visitor's wait).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { DraftStore } from "~/context";
import type { Logger } from "./log";
import { watchRedis } from "./redis-watch";

export const DRAFT_TTL_SECONDS = 60 * 60;
/** 16 random bytes, base64url: 22 characters nobody can guess. */
const ID = /^[A-Za-z0-9_-]{22}$/;

export interface DraftOptions {
  redisUrl?: string | undefined;
  log: Pick<Logger, "info" | "warn">;
  ttlSeconds?: number;
  /** The in-memory store's bound, in UTF-16 code units of JSON (a full draft is about 11 KB). */
  maxMemory?: number;
}

export function createDraftStore({
  redisUrl,
  log,
  ttlSeconds = DRAFT_TTL_SECONDS,
  maxMemory = 16 * 1024 * 1024,
}: DraftOptions): DraftStore & { close(): Promise<void> } {
  const memory = new LRUCache<string, string>({ maxSize: maxMemory, sizeCalculation: (json, id) => json.length + id.length, ttl: ttlSeconds * 1000 });
  const redis = redisUrl
    ? watchRedis(new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500 }), log, {
        event: "draft_store",
        fields: { store: "redis" },
        fallback: "memory",
      })
    : undefined;
  const key = (id: string) => `draft:${id}`;

  return {
    async save(value, existing) {
      const id = existing !== undefined && ID.test(existing) ? existing : randomBytes(16).toString("base64url");
      const json = JSON.stringify(value);
      try {
        if (!redis) throw new Error("no redis");
        await redis.set(key(id), json, "EX", ttlSeconds);
      } catch {
        memory.set(id, json);
      }
      return id;
    },
    async load(id) {
      if (!ID.test(id)) return undefined;
      let json: string | null | undefined;
      try {
        json = await redis?.get(key(id));
      } catch {
        json = undefined;
      }
      json ??= memory.get(id);
      return json == null ? undefined : (JSON.parse(json) as unknown);
    },
    close: async () => void (await redis?.quit().catch(() => redis.disconnect())),
  };
}

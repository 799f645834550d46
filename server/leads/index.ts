/**
 * The lead store and its delivery (docs/product.md, "A lead's path"): a lead is stored before the visitor is
 * thanked, then delivered in the background until the form service confirms it. The embedded
 * SQLite store by default; Redis (BullMQ) with REDIS_URL, with the SQLite store as its fallback.
 */
import { createRedisQueue, type RedisQueueOptions } from "./redis-queue";
import { createSqliteQueue, type QueueOptions } from "./sqlite-queue";
import type { LeadQueue } from "./types";

export function createLeadQueue(options: QueueOptions & Partial<RedisQueueOptions>): LeadQueue {
  const { redisUrl } = options;
  return redisUrl ? createRedisQueue({ ...options, redisUrl }) : createSqliteQueue(options);
}

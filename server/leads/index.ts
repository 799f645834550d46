/**
 * The lead pipeline's one entry point (docs/product.md, "A lead's path"): a lead is stored before
 * the visitor is thanked, then delivered in the background until the form service confirms it.
 * The embedded SQLite store by default (sqlite-queue.ts); with REDIS_URL, Redis (BullMQ) as the
 * queue and the SQLite store as the record (redis-queue.ts). What both do alike: pipeline.ts.
 */
import type { QueueOptions } from "./pipeline";
import { createRedisQueue } from "./redis-queue";
import { createSqliteQueue } from "./sqlite-queue";
import { createTransport, type TransportConfig } from "./transport";
import type { LeadQueue } from "./types";

export { PER_ADDRESS } from "./schedule";
export { AddressFull } from "./store";
export type { LeadEvents } from "./types";

export function createLeadQueue({
  redisUrl,
  delivery,
  ...options
}: Omit<QueueOptions, "transport"> & { redisUrl?: string; delivery: TransportConfig }): LeadQueue {
  const transport = createTransport(delivery);
  return redisUrl ? createRedisQueue({ ...options, transport, redisUrl }) : createSqliteQueue({ ...options, transport });
}

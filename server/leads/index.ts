/**
 * The lead store and its delivery (DESIGN.md decision 2): a lead is stored before the visitor is
 * thanked, then delivered in the background until the form service confirms it. The embedded
 * journal by default; Redis (BullMQ) with REDIS_URL.
 */
import { createJournalQueue, type QueueOptions } from "./journal-queue";
import { createRedisQueue } from "./redis-queue";
import type { LeadQueue } from "./types";

export function createLeadQueue(options: QueueOptions & { redisUrl?: string }): LeadQueue {
  const { redisUrl } = options;
  return redisUrl ? createRedisQueue({ ...options, redisUrl }) : createJournalQueue(options);
}

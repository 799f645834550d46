/**
 * When to try a failed delivery again: exponential backoff with equal jitter, the first retry
 * within seconds, then capped at about every 15 minutes, for at least 7 days from acceptance.
 */
import { randomBytes } from "node:crypto";

export const FIRST_DELAY_MS = 2_000;
export const MAX_DELAY_MS = 15 * 60_000;
export const RETRY_WINDOW_MS = 7 * 24 * 60 * 60_000;

/** The wait before retry `n` (1 after the first failed attempt): half fixed, half random. */
export function retryDelay(n: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether a lead accepted (or re-queued) at `since` has had its 7 days of retries. */
export function expired(since: number, now: number): boolean {
  return now - since >= RETRY_WINDOW_MS;
}

/** A stable, readable id: the date and 8 random characters, e.g. "20261122-7F3KQ9ZA". */
export function newLeadId(now: number): string {
  const day = new Date(now).toISOString().slice(0, 10).replaceAll("-", "");
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford's base 32: no I, L, O, U
  return `${day}-${[...randomBytes(8)].map((b) => alphabet[b % 32]).join("")}`;
}

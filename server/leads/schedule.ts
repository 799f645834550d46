/**
 * When to try a failed delivery again: exponential backoff with equal jitter, the first retry
 * within seconds, then capped at about every 15 minutes, for at least 7 days from acceptance.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Lead } from "./types";

const FIRST_DELAY_MS = 2_000;
export const MAX_DELAY_MS = 15 * 60_000;
export const RETRY_WINDOW_MS = 7 * 24 * 60 * 60_000;
/** How long the same form posted again answers the first one's reference instead of a new lead. */
export const DEDUPE_WINDOW_MS = 24 * 60 * 60_000;

/**
 * One client address (an IPv4 address, an IPv6 /64) may hide many people (an office, a carrier's
 * CGNAT): decision 0031. Five of its leads are let through per ten minutes; more are held and let go
 * at that pace, fairly among addresses; at most twenty are held at once, and only the next is refused.
 */
export const PER_ADDRESS = { letThrough: 5, windowMs: 10 * 60_000, held: 20 } as const;

/** The wait before retry `n` (1 after the first failed attempt): half fixed, half random. */
export function retryDelay(n: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Whether a lead has had its 7 days of retries: 7 days since it was first accepted by the clock,
 * and 7 days of waits actually scheduled (`retryMs`, stored with the lead), so a clock that jumps
 * forward cannot park a lead early. A clock that jumps back only makes it try longer.
 */
export function expired(firstAcceptedAt: number, retryMs: number, now: number): boolean {
  return now - firstAcceptedAt >= RETRY_WINDOW_MS && retryMs >= RETRY_WINDOW_MS;
}

/** A stable, readable id: the date and 8 random characters, e.g. "20261122-7F3KQ9ZA". */
export function newLeadId(now: number): string {
  const day = new Date(now).toISOString().slice(0, 10).replaceAll("-", "");
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford's base 32: no I, L, O, U
  return `${day}-${[...randomBytes(8)].map((b) => alphabet[b % 32]).join("")}`;
}

/** What makes two posts the same form (decision 0012): the kind and the cleaned, validated text the agency would receive. */
export function leadKey(lead: Lead): string {
  return createHash("sha256")
    .update(JSON.stringify([lead.kind, lead.subject, lead.fromName, lead.replyTo, lead.text]))
    .digest("base64url");
}

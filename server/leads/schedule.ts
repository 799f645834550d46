/** When to try a failed delivery again: exponential backoff with equal jitter, capped at 15 minutes, for 7 days. */
import { createHash, randomBytes } from "node:crypto";
import type { Lead } from "./types";

const FIRST_DELAY_MS = 2_000;
export const MAX_DELAY_MS = 15 * 60_000;
export const RETRY_WINDOW_MS = 7 * 24 * 60 * 60_000;
/** How long the same form again is the same lead. */
export const DEDUPE_WINDOW_MS = 24 * 60 * 60_000;

/** One address may hide many people (decision 0031): past its share leads are held, and only past `held` refused. */
export const PER_ADDRESS = { letThrough: 5, windowMs: 10 * 60_000, held: 20 } as const;

/** The wait before retry `n` (from 1): half fixed, half random. */
export function retryDelay(n: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** 7 days by the clock and 7 days of waits scheduled (`retryMs`), so a clock that jumps forward cannot park a lead early. */
export function expired(firstAcceptedAt: number, retryMs: number, now: number): boolean {
  return now - firstAcceptedAt >= RETRY_WINDOW_MS && retryMs >= RETRY_WINDOW_MS;
}

/** E.g. "20261122-7F3KQ9ZA". */
export function newLeadId(now: number): string {
  const day = new Date(now).toISOString().slice(0, 10).replaceAll("-", "");
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford's base 32: no I, L, O, U
  return `${day}-${[...randomBytes(8)].map((b) => alphabet[b % 32]).join("")}`;
}

/** Two posts are the same form when the agency would receive the same (decision 0012). */
export function leadKey(lead: Lead): string {
  const received = JSON.stringify([lead.kind, lead.subject, lead.fromName, lead.replyTo, lead.text]);
  return createHash("sha256").update(received).digest("base64url");
}

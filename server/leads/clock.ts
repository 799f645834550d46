/**
 * The clock the lead pipeline reads, as one object the queue takes, so a test makes time pass
 * (tests/support/clock.ts) instead of waiting for it. Claims are measured on another clock, the
 * engine's (server/db.ts).
 */
export interface Clock {
  /** Wall time in ms: what a lead is stamped with, and what its schedule counts on. */
  now(): number;
  /** Calls `then` once `ms` have passed, without keeping the process up for it; the answer cancels it. */
  after(ms: number, then: () => void): () => void;
}

export const systemClock: Clock = {
  now: Date.now,
  after(ms, then) {
    const timer = setTimeout(then, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

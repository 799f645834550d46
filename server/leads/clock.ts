/** The lead pipeline's clock, an object a test replaces to make time pass (tests/support/clock.ts); claims use the engine's (db.ts). */
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

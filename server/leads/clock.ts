/** The lead pipeline's clock, an object a test replaces to make time pass (tests/support/clock.ts); claims use the engine's (db.ts). */
export interface Clock {
  now(): number;
  /** Does not keep the process up; the answer cancels it. */
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

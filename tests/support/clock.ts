import type { Clock } from "../../server/leads/clock";

/**
 * A clock a test moves: it runs with real time, and `advance` jumps it forward at once (firing
 * the timers that jump passes). `naps` counts the times something went to sleep on it (`sleeps`:
 * for how long): a queue's loop does after every look, so a test waits for looks to happen, never
 * for time to go by.
 */
export function testClock(start = Date.parse("2026-11-22T10:00:00Z")) {
  const origin = performance.now();
  let jumped = 0;
  const elapsed = () => performance.now() - origin + jumped;
  const timers = new Set<{ at: number; fire: () => void }>();
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => Math.floor(start + elapsed()),
    after(ms, then) {
      sleeps.push(ms);
      const timer = {
        at: elapsed() + ms,
        fire: () => {
          if (!timers.delete(timer)) return;
          clearTimeout(real);
          then();
        },
      };
      const real = setTimeout(timer.fire, Math.max(0, ms));
      real.unref();
      timers.add(timer);
      return () => {
        timers.delete(timer);
        clearTimeout(real);
      };
    },
  };
  return {
    clock,
    /** Moves the clock `ms` forward at once. */
    advance(ms: number) {
      jumped += ms;
      for (const timer of [...timers]) if (timer.at <= elapsed()) timer.fire();
    },
    /** How many times something has gone to sleep on this clock so far. */
    naps: () => sleeps.length,
    /** How long each of those sleeps was to be, in order. */
    sleeps: () => [...sleeps],
  };
}

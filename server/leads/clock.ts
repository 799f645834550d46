/**
 * The clocks the lead pipeline reads, as one object both queues and the store take, so a test
 * makes time pass (tests/support/clock.ts) instead of waiting for it.
 */
import { readFileSync } from "node:fs";

export interface Clock {
  /** Wall time in ms: what a lead is stamped with, and what its schedule counts on. */
  now(): number;
  /** The host's monotonic clock in ms (CLOCK_MONOTONIC on Linux): the same for every process, never set. Claims are measured on it. */
  monotonic(): number;
  /** Which boot of the host that monotonic clock belongs to: a claim made before a reboot never counts (its clock restarted). */
  boot: string;
  /** Calls `then` once `ms` have passed, without keeping the process up for it; the answer cancels it. */
  after(ms: number, then: () => void): () => void;
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    // Elsewhere (a development machine): one name for every boot. A claim a crash left before a
    // reboot then holds until the new clock passes it: a stall, never a lead sent twice.
    return "boot";
  }
}

export const systemClock: Clock = {
  now: Date.now,
  monotonic: () => Number(process.hrtime.bigint() / 1_000_000n),
  boot: bootId(),
  after(ms, then) {
    const timer = setTimeout(then, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

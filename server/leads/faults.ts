/**
 * A lead store that cannot be read or written: the delivery loop waits 1 s, then twice as long each
 * time, up to a minute. The log says so once when it starts and once when it clears.
 */
import type { Logger } from "../log";

const [FIRST_WAIT_MS, LONGEST_WAIT_MS] = [1_000, 60_000];

export function storeFaults(log: Logger, now: () => number) {
  let fault: { since: number; waitMs: number } | undefined;
  return {
    get failing() {
      return fault !== undefined;
    },
    /** How long the loop waits before its next look: `usual`, or the fault's wait. */
    wait: (usual: number) => (fault ? fault.waitMs : usual),
    /** A store call failed (`read`: the loop's own look; `write`: a lead, an outcome, a hand-over): the fault starts, if it had not. */
    failed(error: unknown, operation: "read" | "write", fields: Record<string, unknown> = {}) {
      if (fault) return;
      fault = { since: now(), waitMs: FIRST_WAIT_MS };
      log.error({ err: error, ...fields }, `lead_store_${operation}_failed`);
    },
    /** The loop's own look failed: the next one waits twice as long (other failures meanwhile do not add up). */
    lookFailed(error: unknown) {
      if (!fault) return this.failed(error, "read");
      fault.waitMs = Math.min(LONGEST_WAIT_MS, fault.waitMs * 2);
    },
    /** A write went through: the store works again. */
    cleared() {
      if (!fault) return;
      log.info({ seconds: Math.max(0, Math.round((now() - fault.since) / 1000)) }, "lead_store_recovered");
      fault = undefined;
    },
  };
}

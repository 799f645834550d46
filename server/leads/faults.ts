/** A store that fails: the delivery loop waits 1 s, doubling to a minute; said once when it starts, once when it clears. */
import type { Logger } from "../log";

const [FIRST_WAIT_MS, LONGEST_WAIT_MS] = [1_000, 60_000];

export function storeFaults(log: Logger, now: () => number) {
  let fault: { since: number; waitMs: number } | undefined;
  return {
    get failing() {
      return fault !== undefined;
    },
    wait: (usual: number) => (fault ? fault.waitMs : usual),
    failed(error: unknown, operation: "read" | "write", fields: Record<string, unknown> = {}) {
      if (fault) return;
      fault = { since: now(), waitMs: FIRST_WAIT_MS };
      log.error({ err: error, ...fields }, `lead_store_${operation}_failed`);
    },
    /** Only the loop's own look doubles the wait. */
    lookFailed(error: unknown) {
      if (!fault) return this.failed(error, "read");
      fault.waitMs = Math.min(LONGEST_WAIT_MS, fault.waitMs * 2);
    },
    cleared() {
      if (!fault) return;
      log.info({ seconds: Math.max(0, Math.round((now() - fault.since) / 1000)) }, "lead_store_recovered");
      fault = undefined;
    },
  };
}

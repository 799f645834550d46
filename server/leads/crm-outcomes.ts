/**
 * Zoho CRM's outcomes read back (decision 0053): each delivered lead kept, not yet won, is won once Zoho shows it
 * converted or with a Lead_Status in ZOHO_WON_STATUSES. Hourly from the server and on command; one container at a time.
 */
import type { Db } from "../db";
import type { Logger } from "../log";
import { outcomes } from "./outcomes";
import { leadStore } from "./store";
import { createZohoTransport, type ZohoSettings } from "./zoho-crm";

const READ_EVERY_MS = 3_600_000;
/** A read's claim, let go at its end; a read is cut a minute before it runs out, so no other can begin beside it. */
const CLAIM_MS = 15 * 60_000;
const READ_MS = CLAIM_MS - 60_000;

export type CrmRead = { busy: true } | { failed: string; status?: number } | { asked: number; won: number };

/** One read: `busy` while another process's claim holds. A converted deal's amount is not read: value none. Throws the store's failures. */
export async function readCrmOutcomes(db: Db, zoho: ZohoSettings, timeoutMs: number, stop?: AbortSignal): Promise<CrmRead> {
  const store = leadStore(db);
  if (!(await store.claimRead(CLAIM_MS))) return { busy: true };
  try {
    const kept = outcomes(db);
    const asked = await kept.inCrm();
    const won = zoho.wonStatuses ?? [];
    const states =
      asked.length > 0
        ? await createZohoTransport(zoho, timeoutMs).states(
            [...new Set(asked.map((a) => a.record))],
            won,
            AbortSignal.any([AbortSignal.timeout(READ_MS), ...(stop ? [stop] : [])]),
          )
        : new Map();
    if (!(states instanceof Map)) return { failed: states.reason, status: states.status };
    let marked = 0;
    for (const { reference, record } of asked) {
      const state = states.get(record);
      if (state?.converted || (state?.status !== undefined && won.includes(state.status))) marked += await kept.mark(reference, "won", null, Date.now());
    }
    return { asked: asked.length, won: marked };
  } finally {
    await store.releaseRead();
  }
}

/** The server's schedule: a read at start, then hourly; `stop` cuts a read in flight and waits for it. */
export function scheduleCrmOutcomes(db: Db, zoho: ZohoSettings, timeoutMs: number, log: Pick<Logger, "info" | "warn">) {
  const cut = new AbortController();
  let reading: Promise<void> | undefined;
  const read = () =>
    void (reading ??= readCrmOutcomes(db, zoho, timeoutMs, cut.signal)
      .then((result) => ("failed" in result ? log.warn(result, "crm_outcomes_not_read") : log.info(result, "crm_outcomes_read")))
      .catch((error: unknown) => log.warn({ err: error }, "crm_outcomes_not_read"))
      .finally(() => (reading = undefined)));
  const timer = setInterval(read, READ_EVERY_MS).unref();
  read();
  return {
    async stop() {
      clearInterval(timer);
      cut.abort();
      await reading;
    },
  };
}

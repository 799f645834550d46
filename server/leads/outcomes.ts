/**
 * What became of each lead (decision 0053): a row per lead in the lead store, written with the lead, holding only what
 * the funnel sums (the reference, the day sent, the source, the device class, the kind) and its outcome. Kept as long as
 * the funnel's counts, well past the lead's own row; a person's erasure leaves it a count with no reference.
 */
import { FUNNEL_KEEP_DAYS } from "~/content/privacy";
import { sourceKey } from "~/funnel/source";
import type { Db, Sql } from "../db";
import { dayOf, type OutcomeCount } from "../funnel";
import type { Lead } from "./types";

export type Decided = OutcomeCount["outcome"];

/** In the lead's own insert (store.ts): a duplicate form stores neither. A lead from before sources, or a request without an agent, says "unknown". */
export const recordOutcome = (tx: Sql, lead: Lead, reference: string, now: number, device = "unknown") =>
  tx.run("INSERT INTO outcomes (reference, day, source, device, kind) VALUES (?, ?, ?, ?, ?) ON CONFLICT (reference) DO NOTHING", [
    reference,
    dayOf(now),
    lead.source ? sourceKey(lead.source) : "unknown",
    device,
    lead.kind,
  ]);
/** The store's cleanup: past the funnel's keeping, as its counts. */
export const purgeOutcomes = (tx: Sql, now: number) => tx.run("DELETE FROM outcomes WHERE day < ?", [dayOf(now - FUNNEL_KEEP_DAYS * 86_400_000)]);
/** A person's erasure: the count stays, nothing leads back to them (the CRM's id neither). */
export const eraseOutcome = (tx: Sql, reference: string) =>
  tx.run("UPDATE outcomes SET reference = NULL, crm_record = NULL, decided_at = NULL WHERE reference = ?", [reference]);

export function outcomes(db: Db) {
  return {
    /** Won or lost, in whole rand (null: not given), again to correct it. 0: no such reference, or erased. */
    mark: (reference: string, outcome: Decided, value: number | null, now: number) =>
      db.run("UPDATE outcomes SET outcome = ?, value = ?, decided_at = ? WHERE reference = ?", [outcome, value, now, reference]),
    /** The funnel's reader: leads sent on days `from` to `to` (YYYY-MM-DD) that were won or lost. */
    read: async (from: string, to: string): Promise<OutcomeCount[]> =>
      (await db.all("SELECT day, source, device, outcome, value FROM outcomes WHERE outcome <> 'none' AND day >= ? AND day <= ?", [from, to])).map((r) => ({
        day: String(r.day),
        source: String(r.source),
        device: String(r.device),
        outcome: r.outcome as Decided,
        value: r.value === null ? null : Number(r.value),
      })),
    /** What is kept for a reference (`find`), undefined once erased. */
    of: (reference: string) => db.get("SELECT reference, day, source, device, kind, outcome, value FROM outcomes WHERE reference = ?", [reference]),
    erase: (reference: string) => eraseOutcome(db, reference),
    /** Leads the CRM holds, within the keeping, not yet won: what a read-back asks it about. */
    inCrm: async () =>
      (await db.all("SELECT reference, crm_record FROM outcomes WHERE crm_record IS NOT NULL AND reference IS NOT NULL AND outcome <> 'won' ORDER BY day")).map(
        (r) => ({ reference: String(r.reference), record: String(r.crm_record) }),
      ),
  };
}

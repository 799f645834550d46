/**
 * Upgrading from the journal of decision 0009: leads still pending or parked in
 * `DATA_DIR/leads.jsonl` are imported into the database once, in one transaction, and the journal
 * is renamed `leads.jsonl.imported` (kept, not deleted). A line that cannot be read is counted
 * and logged; the file stays for the operator to look at.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log";
import { leadKey } from "./schedule";
import type { LeadStore } from "./store";
import type { StoredLead } from "./types";

type Record =
  | ({ t: "lead" } & StoredLead)
  | { t: "done"; id: string }
  | { t: "park"; id: string; at: number; reason: string; status?: number }
  | { t: "requeue"; id: string };

export function importJournal(store: LeadStore, dataDir: string, log: Logger, now = Date.now()) {
  const file = join(dataDir, "leads.jsonl");
  if (!existsSync(file)) return;
  const leads = new Map<string, StoredLead>();
  const parked = new Map<string, { reason: string; status?: number; at: number }>();
  let unreadable = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const r = JSON.parse(line) as Record;
      if (r.t === "lead") {
        const { t: _t, ...lead } = r;
        leads.set(lead.id, lead);
      } else if (r.t === "done") {
        leads.delete(r.id);
        parked.delete(r.id);
      } else if (r.t === "park") parked.set(r.id, { reason: r.reason, status: r.status, at: r.at });
      else if (r.t === "requeue") parked.delete(r.id);
    } catch {
      unreadable += 1;
    }
  }
  store.transaction(() => {
    for (const lead of leads.values()) store.importLead(lead, leadKey(lead), parked.get(lead.id), now);
  });
  renameSync(file, `${file}.imported`);
  log.warn({ file, leads: leads.size, parked: [...leads.keys()].filter((id) => parked.has(id)).length, unreadableLines: unreadable }, "lead_journal_imported");
}

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { quietLog } from "../../tests/support/quiet-log";
import { importJournal } from "./legacy-journal";
import { openStore } from "./store";

const lead = (id: string) => ({
  t: "lead",
  id,
  acceptedAt: 1_000,
  kind: "contact",
  subject: "New contact form message from Ada",
  fromName: "Ada",
  replyTo: "ada@example.com",
  text: `Message: ${id}`,
});

describe("importing the old journal", () => {
  it("brings its pending and parked leads into the database once, skips delivered ones and a torn line, and keeps the file renamed", () => {
    const dir = mkdtempSync(join(tmpdir(), "legacy-"));
    const lines = [
      lead("P1"),
      lead("D1"),
      { t: "done", id: "D1", at: 2 },
      lead("K1"),
      { t: "park", id: "K1", at: 3, reason: "http", status: 401 },
      lead("R1"),
      { t: "park", id: "R1", at: 3, reason: "http" },
      { t: "requeue", id: "R1", at: 4 },
    ];
    writeFileSync(join(dir, "leads.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"t":"lead","id":"TORN`);
    const store = openStore(join(dir, "leads.db"));
    importJournal(store, dir, quietLog, 5_000);
    importJournal(store, dir, quietLog, 5_000); // nothing left to import
    expect(store.list(["pending", "parked"]).map((r) => [r.id, r.status, r.firstAcceptedAt, r.parkedReason, r.lead?.text])).toEqual([
      ["P1", "pending", 1_000, null, "Message: P1"],
      ["K1", "parked", 1_000, "http", "Message: K1"],
      ["R1", "pending", 1_000, null, "Message: R1"],
    ]);
    expect([existsSync(join(dir, "leads.jsonl")), existsSync(join(dir, "leads.jsonl.imported"))]).toEqual([false, true]);
    store.close();
  });
});

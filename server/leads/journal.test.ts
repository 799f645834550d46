import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { quietLog } from "../../tests/support/quiet-log";
import { openJournal, readJournal, requestRequeue, takeRequeueRequests, type JournalRecord } from "./journal";
import type { StoredLead } from "./types";

const log = quietLog;
const lead = (id: string): StoredLead => ({ id, acceptedAt: 1_000, kind: "calculator", subject: "S", fromName: "F", replyTo: "r@example.com", text: "T" });
const lines = (records: JournalRecord[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");
const tempFile = async () => join(await mkdtemp(join(tmpdir(), "journal-")), "data", "leads.jsonl");

describe("openJournal", () => {
  it("has each line on disk once append resolves", async () => {
    const file = await tempFile();
    const journal = await openJournal(file, log);
    await journal.append({ t: "lead", ...lead("A") });
    expect(await readFile(file, "utf8")).toBe(lines([{ t: "lead", ...lead("A") }]));
    expect([...journal.state.pending.keys()]).toEqual(["A"]);
    await journal.close();
  });

  it("replays what a crash left (a torn last line included) and keeps only pending and parked leads", async () => {
    const file = await tempFile();
    await openJournal(file, log).then((j) => j.close());
    await writeFile(
      file,
      lines([
        { t: "lead", ...lead("A") },
        { t: "lead", ...lead("B") },
        { t: "lead", ...lead("C") },
        { t: "done", id: "A", at: 2_000 },
        { t: "park", id: "C", at: 3_000, reason: "http", status: 401 },
      ]) + '{"t":"lead","id":"D","kind"',
    );
    const journal = await openJournal(file, log);
    expect([...journal.state.pending.keys()]).toEqual(["B"]);
    expect(journal.state.parked.get("C")).toMatchObject({ reason: "http", status: 401, parkedAt: 3_000 });
    expect(await readFile(file, "utf8")).toBe(lines([{ t: "lead", ...lead("B") }, { t: "lead", ...lead("C") }, { t: "park", id: "C", at: 3_000, reason: "http", status: 401 }]));
    await journal.close();
  });

  it("belongs to one process at a time", async () => {
    const file = await tempFile();
    const first = await openJournal(file, log);
    await expect(openJournal(file, log, { lockWaitMs: 1_000 })).rejects.toMatchObject({ code: "ELOCKED" });
    await first.close();
    await (await openJournal(file, log)).close();
  });

  it("a requeue makes a parked lead pending again, its retry window starting anew", async () => {
    const file = await tempFile();
    const journal = await openJournal(file, log);
    await journal.append({ t: "lead", ...lead("A") });
    await journal.append({ t: "park", id: "A", at: 2_000, reason: "expired" });
    await journal.append({ t: "requeue", id: "A", at: 9_000 });
    expect(journal.state.pending.get("A")).toMatchObject({ since: 9_000 });
    expect(journal.state.parked.size).toBe(0);
    await journal.close();
    expect((await readJournal(file)).pending.get("A")).toMatchObject({ since: 9_000 });
  });
});

describe("requeue requests", () => {
  it("are taken once each, whoever wrote them", async () => {
    const file = await tempFile();
    await openJournal(file, log).then((j) => j.close());
    await requestRequeue(file, ["A", "B"]);
    await requestRequeue(file, ["*"]);
    expect((await takeRequeueRequests(file)).sort()).toEqual(["*", "A", "B"]);
    expect(await takeRequeueRequests(file)).toEqual([]);
  });
});

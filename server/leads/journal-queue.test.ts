import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../log";
import { quietLog } from "../../tests/support/quiet-log";
import { requestRequeue } from "./journal";
import { createJournalQueue } from "./journal-queue";
import { RETRY_WINDOW_MS } from "./schedule";
import type { DeliveryOutcome, Lead, StoredLead, Transport } from "./types";

const lead: Lead = { kind: "contact", subject: "New contact form message from Ada", fromName: "Ada", replyTo: "ada@example.com", text: "Name: Ada\nMessage: our secret plans" };
const tempFile = async () => join(await mkdtemp(join(tmpdir(), "queue-")), "leads.jsonl");
const until = async (check: () => boolean, ms = 8_000) => {
  for (const started = Date.now(); !check(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() - started > ms) throw new Error("timed out");
};

/** A transport that answers each attempt with the next scripted outcome (the last one repeats). */
function scripted(...outcomes: DeliveryOutcome[]) {
  const attempts: StoredLead[] = [];
  const transport: Transport = { name: "fake", deliver: async (l) => (attempts.push(l), outcomes[Math.min(attempts.length, outcomes.length) - 1]!) };
  return { transport, attempts };
}

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
  return { log, lines };
}

const failed: DeliveryOutcome = { ok: false, retry: true, reason: "http", status: 500 };

describe("the embedded queue", () => {
  it("stores a lead before answering, then delivers it once, retrying within seconds after failures", async () => {
    const journalFile = await tempFile();
    const { transport, attempts } = scripted(failed, failed, { ok: true, status: 200 });
    const queue = createJournalQueue({ journalFile, transport, log: quietLog, random: () => 0 });
    await queue.start();
    const id = await queue.accept(lead);
    expect(await readFile(journalFile, "utf8")).toContain(`"id":"${id}"`);
    expect(queue.stats()).toMatchObject({ store: "journal", writable: true, pending: 1, parked: 0 });
    await until(() => queue.stats().pending === 0);
    expect(attempts.map((a) => a.id)).toEqual([id, id, id]);
    await queue.close();
  });

  it("parks a lead the service refuses for good, logs one error line without personal data, and never retries it", async () => {
    const { log, lines } = logLines();
    const { transport, attempts } = scripted({ ok: false, retry: false, reason: "http", status: 401 });
    const queue = createJournalQueue({ journalFile: await tempFile(), transport, log });
    await queue.start();
    const id = await queue.accept(lead);
    await until(() => queue.stats().parked === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toHaveLength(1);
    expect(lines.filter((l) => l.level === "error")).toEqual([expect.objectContaining({ event: "lead_parked", id, kind: "contact", reason: "http", status: 401 })]);
    expect(JSON.stringify(lines)).not.toMatch(/Ada|secret plans|ada@example.com/);
    await queue.close();
  });

  it("parks a lead still failing 7 days after it was accepted", async () => {
    let now = Date.parse("2026-11-22T10:00:00Z");
    const queue = createJournalQueue({ journalFile: await tempFile(), transport: scripted(failed).transport, log: quietLog, now: () => now, random: () => 0 });
    await queue.start();
    now += RETRY_WINDOW_MS;
    await queue.accept(lead).then(() => (now += RETRY_WINDOW_MS));
    await until(() => queue.stats().parked === 1);
    await queue.close();
  });

  it("picks up what was pending after a restart, and what an operator re-queued meanwhile", async () => {
    const journalFile = await tempFile();
    const first = createJournalQueue({ journalFile, transport: scripted(failed).transport, log: quietLog });
    await first.start();
    await first.accept(lead);
    await first.close();
    const refused = createJournalQueue({ journalFile, transport: scripted({ ok: false, retry: false, reason: "http", status: 403 }).transport, log: quietLog });
    await refused.start();
    await until(() => refused.stats().parked === 1);
    await refused.close();

    const { transport, attempts } = scripted({ ok: true });
    const fixed = createJournalQueue({ journalFile, transport, log: quietLog });
    await requestRequeue(journalFile, ["*"]);
    await fixed.start();
    await until(() => attempts.length === 1 && fixed.stats().parked === 0 && fixed.stats().pending === 0);
    await fixed.close();
  });

  it("close waits for a delivery in flight", async () => {
    let finish = (_: DeliveryOutcome) => {};
    const transport: Transport = { name: "slow", deliver: () => new Promise((resolve) => (finish = resolve)) };
    const queue = createJournalQueue({ journalFile: await tempFile(), transport, log: quietLog });
    await queue.start();
    await queue.accept(lead);
    await new Promise((r) => setTimeout(r, 50));
    let closed = false;
    const closing = queue.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    finish({ ok: true });
    await closing;
  });

  it("with an unwritable store, it starts but refuses to take a lead", async () => {
    const queue = createJournalQueue({ journalFile: "/dev/null/leads.jsonl", transport: scripted({ ok: true }).transport, log: quietLog });
    await queue.start();
    expect(queue.stats()).toMatchObject({ writable: false, pending: 0 });
    await expect(queue.accept(lead)).rejects.toThrow(/cannot be written/);
    await queue.close();
  });
});

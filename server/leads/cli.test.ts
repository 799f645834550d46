import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { quietLog } from "../../tests/support/quiet-log";
import { runCli } from "./cli";
import { openJournal, takeRequeueRequests } from "./journal";
import type { StoredLead } from "./types";

const lead = (id: string): StoredLead => ({ id, acceptedAt: Date.now() - 3 * 3600_000, kind: "contact", subject: "New contact form message from Ada", fromName: "Ada", replyTo: "ada@example.com", text: "Message: secret plans" });

async function journalWith() {
  const file = join(await mkdtemp(join(tmpdir(), "cli-")), "leads.jsonl");
  const journal = await openJournal(file, quietLog);
  await journal.append({ t: "lead", ...lead("P1") });
  await journal.append({ t: "lead", ...lead("K1") });
  await journal.append({ t: "park", id: "K1", at: Date.now(), reason: "http", status: 401 });
  await journal.close();
  return file;
}

const run = async (argv: string[], env: Record<string, string>) => {
  const out: string[] = [];
  const code = await runCli(argv, env, (line) => out.push(line));
  return { code, out };
};

describe("npm run leads", () => {
  it("list: one line per pending or parked lead, with no personal data", async () => {
    const { code, out } = await run(["list"], { LEADS_FILE: await journalWith() });
    expect(code).toBe(0);
    expect(out).toEqual(["id\tkind\tstatus\tage\treason", "P1\tcontact\tpending\t3h\t", "K1\tcontact\tparked\t3h\thttp"]);
  });

  it("export: every lead in full, one JSON object per line", async () => {
    const { out } = await run(["export"], { LEADS_FILE: await journalWith() });
    expect(out.map((l) => JSON.parse(l) as Record<string, string>)).toEqual([
      expect.objectContaining({ id: "P1", status: "pending", text: "Message: secret plans", replyTo: "ada@example.com" }),
      expect.objectContaining({ id: "K1", status: "parked", reason: "http" }),
    ]);
  });

  it("retry: asks the process that owns the journal to re-queue parked leads", async () => {
    const file = await journalWith();
    const { code, out } = await run(["retry"], { LEADS_FILE: file });
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^re-queued 1 lead/);
    expect(await takeRequeueRequests(file)).toEqual(["*"]);
    await run(["retry", "K1"], { LEADS_FILE: file });
    expect(await takeRequeueRequests(file)).toEqual(["K1"]);
  });

  it("answers anything else with its usage and exit code 2", async () => {
    expect(await run(["delete-everything"], {})).toEqual({ code: 2, out: ["usage: npm run leads -- list | export | retry [id ...]"] });
    expect((await run(["--help"], {})).code).toBe(0);
  });
});

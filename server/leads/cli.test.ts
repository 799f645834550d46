import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli";
import { openStore } from "./store";
import type { Lead } from "./types";

const lead = (text: string): Lead => ({ kind: "contact", subject: "New contact form message from Ada", fromName: "Ada", replyTo: "ada@example.com", text });
const HOURS_AGO = Date.now() - 3 * 3600_000;

/** A data folder whose store holds a pending lead P1, a parked K1 and a held H1. */
async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), "cli-"));
  const store = openStore(join(dir, "leads.db"));
  store.insert(lead("Message: secret plans"), { id: "P1", key: "p", now: HOURS_AGO, perHour: 60 });
  store.insert(lead("Message: parked plans"), { id: "K1", key: "k", now: HOURS_AGO + 1, perHour: 60 });
  store.insert(lead("Message: held plans"), { id: "H1", key: "h", now: HOURS_AGO + 2, perHour: 0 });
  store.claimDue(() => HOURS_AGO + 10, 10, 1);
  store.park("K1", HOURS_AGO + 10, "http", 401);
  store.close();
  return dir;
}

const run = async (argv: string[], env: Record<string, string>) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    env,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out, err };
};

describe("npm run leads", () => {
  it("list: one line per pending, held or parked lead, with no personal data", async () => {
    const { code, out } = await run(["list"], { DATA_DIR: await dataDir() });
    expect(code).toBe(0);
    expect(out).toEqual(["id\tkind\tstatus\tage\treason", "P1\tcontact\tpending\t3h\t", "K1\tcontact\tparked\t3h\thttp", "H1\tcontact\theld\t3h\t"]);
  });

  it("list: a lead delivered to Zoho CRM and still kept shows the CRM record it became", async () => {
    const dir = await dataDir();
    const store = openStore(join(dir, "leads.db"));
    store.insert(lead("Message: in the CRM"), { id: "Z1", key: "z", now: HOURS_AGO + 3, perHour: 60 });
    store.delivered("Z1", HOURS_AGO + 20, 86_400_000, "5725767000000524157");
    store.close();
    const { out } = await run(["list"], { DATA_DIR: dir });
    expect(out.slice(-1)).toEqual(["Z1\tcontact\tdelivered\t3h\trecord 5725767000000524157"]);
  });

  it("export: every such lead in full, one JSON object per line", async () => {
    const { out } = await run(["export"], { DATA_DIR: await dataDir() });
    expect(out.map((l) => JSON.parse(l) as Record<string, string>)).toEqual([
      expect.objectContaining({ id: "P1", status: "pending", text: "Message: secret plans", replyTo: "ada@example.com" }),
      expect.objectContaining({ id: "K1", status: "parked", reason: "http" }),
      expect.objectContaining({ id: "H1", status: "held" }),
    ]);
  });

  it("retry re-queues parked leads and release sends held ones on, in the database itself", async () => {
    const dir = await dataDir();
    expect((await run(["retry"], { DATA_DIR: dir })).out[0]).toMatch(/^re-queued 1 lead/);
    expect((await run(["release", "H1"], { DATA_DIR: dir })).out[0]).toMatch(/^released 1 lead/);
    expect((await run(["release", "H1"], { DATA_DIR: dir })).out[0]).toMatch(/^released 0 lead/);
    const store = openStore(join(dir, "leads.db"));
    expect(store.stats(Date.now())).toMatchObject({ pending: 3, parked: 0, held: 0 });
    store.close();
  });

  it("status: counts, the oldest pending lead's age, retention and the ceiling, as JSON", async () => {
    const { code, out } = await run(["status"], { DATA_DIR: await dataDir(), LEAD_RETENTION_DAYS: "7" });
    expect(code).toBe(0);
    expect(JSON.parse(out.join("\n"))).toMatchObject({
      store: "sqlite",
      pending: 1,
      held: 1,
      parked: 1,
      retentionDays: 7,
      leadsPerHour: 60,
      oldestPendingSeconds: expect.any(Number),
    });
  });

  it("says so, exit 1, when the store cannot be read, and changes nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    await writeFile(join(dir, "leads.db"), "not a database\n");
    const { code, err } = await run(["retry"], { DATA_DIR: dir });
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(/cannot be used.*nothing was changed/);
  });

  it("funnel: the last days as JSON with --json, or a table; a bad --days, an unknown flag or an id is exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    const json = await run(["funnel", "--json", "--days", "3"], { DATA_DIR: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out.join("\n"))).toMatchObject({ days: { length: 3 }, sources: [] });
    const table = await run(["funnel"], { DATA_DIR: dir });
    expect(table.out[0]).toBe("The calculator's funnel, last 7 days (Africa/Johannesburg)");
    // A row a day, a bar a step, then the sources: none yet.
    expect(table.out).toHaveLength(2 + 7 + 1 + 5 + 2);
    expect(table.out.at(-1)).toBe("No source brought a visit to step 2 or a message in the last 7 days.");
    expect(await run(["funnel", "--days", "0"], { DATA_DIR: dir })).toMatchObject({ code: 2, err: ["leads: --days must be a whole number from 1 to 400"] });
    expect(await run(["funnel", "--days"], { DATA_DIR: dir })).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/^leads: Option '--days <value>' argument missing/)],
    });
    expect(await run(["funnel", "--weeks", "2"], { DATA_DIR: dir })).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/^leads: Unknown option '--weeks'/)],
    });
    expect(await run(["funnel", "7"], { DATA_DIR: dir })).toMatchObject({ code: 2, err: [expect.stringMatching(/^leads: Unexpected argument '7'/)] });
  });

  it("answers anything else with its usage and exit code 2", async () => {
    expect(await run(["delete-everything"], {})).toMatchObject({
      code: 2,
      out: [
        "usage: npm run leads -- list | export | retry [id ...] | release [id ...] | status | funnel [--json] [--days N] | find <email | phone | reference> [--json] | erase <email | phone | reference> [--yes]",
      ],
    });
    expect((await run(["--help"], {})).code).toBe(0);
  });

  it("refuses a flag it does not know, exit 2, and changes nothing (an operator's `retry --all` was read as an id)", async () => {
    const dir = await dataDir();
    expect(await run(["retry", "--all"], { DATA_DIR: dir })).toMatchObject({
      code: 2,
      out: [],
      err: [expect.stringMatching(/^leads: Unknown option '--all'/)],
    });
    const store = openStore(join(dir, "leads.db"));
    expect(store.stats(Date.now())).toMatchObject({ parked: 1 });
    store.close();
  });

  it("refuses the funnel's flags on another command, exit 2, and changes nothing (parseArgs took them, leaving no ids: all)", async () => {
    const dir = await dataDir();
    for (const argv of [
      ["release", "--days", "7"],
      ["retry", "--json"],
    ])
      expect(await run(argv, { DATA_DIR: dir })).toMatchObject({
        code: 2,
        out: [],
        err: [expect.stringMatching(/^leads: --json and --days are the funnel's/)],
      });
    const store = openStore(join(dir, "leads.db"));
    expect(store.stats(Date.now())).toMatchObject({ held: 1, parked: 1 });
    store.close();
  });
});

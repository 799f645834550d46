/** `npm run leads` on a store a server keeps open: SQLite in a data folder, and a real PostgreSQL (Debian's, a cluster of this file's own). */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it, onTestFinished } from "vitest";
import { ENGINES } from "../../tests/support/engines";
import { leads, serverStores } from "../../tests/support/leads-cli";
import { openDb } from "../db";
import { linkKey, linkValid } from "../funnel-link";
import { dayOf } from "../funnel";
import { randOf, runCli } from "./cli";
import { outcomes } from "./outcomes";
import { leadStore } from "./store";
import type { Lead } from "./types";

const lead = (text: string): Lead => ({ kind: "contact", subject: "New contact form message from Ada", fromName: "Ada", replyTo: "ada@example.com", text });
const HOURS_AGO = Date.now() - 3 * 3600_000;
/** A lead's arrival as the list shows it, to the second. */
const at = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

const serverStore = serverStores();

describe.each(ENGINES)("npm run leads, on %s", (engine) => {
  /** A store holding a pending lead P1, a parked K1 (the service answered 401: a wrong key) and a held H1 (over the ceiling, address code-h). */
  async function seeded() {
    const server = await serverStore(engine);
    await server.store.insert(lead("Message: secret plans"), { id: "P1", key: "p", now: HOURS_AGO, perHour: 60 });
    await server.store.insert(lead("Message: parked plans"), { id: "K1", key: "k", now: HOURS_AGO + 1, perHour: 60 });
    await server.store.insert(lead("Message: held plans"), { id: "H1", key: "h", now: HOURS_AGO + 2, perHour: 0, group: "code-h" });
    await server.store.claimDue(HOURS_AGO + 10, 10, 60_000);
    await server.store.park("K1", HOURS_AGO + 10, "http", 401);
    await server.store.releaseClaims();
    return server;
  }

  it("list: one line per pending, held, parked or kept delivered lead, with no personal data: the rule that held it and its address code, why it was parked (the service's status when it gave one), the CRM record it became", async () => {
    const { store, env } = await seeded();
    // A flood is many leads on few codes: the sixth from one address in ten minutes is held for its share.
    for (let i = 1; i <= 6; i++)
      await store.insert(lead(`Message: flood ${i}`), { id: `F${i}`, key: `f${i}`, now: HOURS_AGO + 2 + i, perHour: 60, group: "code-f" });
    await store.insert(lead("Message: timed out"), { id: "T1", key: "t", now: HOURS_AGO + 9, perHour: 60 });
    await store.insert(lead("Message: in the CRM"), { id: "Z1", key: "z", now: HOURS_AGO + 10, perHour: 60 });
    await store.claimDue(HOURS_AGO + 20, 20, 60_000);
    await store.park("T1", HOURS_AGO + 20, "timeout");
    await store.delivered("Z1", HOURS_AGO + 20, 86_400_000, "5725767000000524157");
    await store.releaseClaims();
    const { code, out } = await leads(["list"], env);
    expect(code).toBe(0);
    expect(out.filter((line) => !line.startsWith("F"))).toEqual([
      "id\tkind\tstatus\tage\tarrived\treason\taddress",
      `P1\tcontact\tpending\t3h\t${at(HOURS_AGO)}\t\t`,
      `K1\tcontact\tparked\t3h\t${at(HOURS_AGO + 1)}\thttp 401\t`,
      `H1\tcontact\theld\t3h\t${at(HOURS_AGO + 2)}\tceiling\tcode-h`,
      `T1\tcontact\tparked\t3h\t${at(HOURS_AGO + 9)}\ttimeout\t`,
      `Z1\tcontact\tdelivered\t3h\t${at(HOURS_AGO + 10)}\trecord 5725767000000524157\t`,
    ]);
    const flood = out.filter((line) => line.startsWith("F")).map((line) => line.split("\t"));
    expect(flood.map(([id, , status, , , reason, code]) => `${id} ${status} ${reason} ${code}`)).toEqual([
      ...[1, 2, 3, 4, 5].map((i) => `F${i} pending  code-f`),
      "F6 held address code-f",
    ]);
  });

  it("discard: removes held leads named by id or address code (every name a name, one starting with '-' too: base64url), each written out first as export writes it; the rest stay", async () => {
    const { store, env } = await seeded();
    for (const id of ["F1", "F2", "F3"]) await store.insert(lead(`Message: flood ${id}`), { id, key: id, now: HOURS_AGO + 3, perHour: 0, group: "code-f" });
    await store.insert(lead("Message: honest, held beside it"), { id: "H2", key: "h2", now: HOURS_AGO + 4, perHour: 0, group: "code-x" });
    const { code, out, err } = await leads(["discard", "code-f", "H1"], env);
    expect(code).toBe(0);
    expect(out.map((line) => JSON.parse(line) as Record<string, string>)).toEqual([
      expect.objectContaining({ id: "H1", status: "held", reason: "ceiling", address: "code-h", text: "Message: held plans" }),
      ...["F1", "F2", "F3"].map((id) => expect.objectContaining({ id, status: "held", address: "code-f", text: `Message: flood ${id}` })),
    ]);
    expect(err).toEqual(["discarded 4 lead(s)"]);
    expect((await store.list(["pending", "held", "parked"])).map((row) => [row.id, row.status])).toEqual([
      ["P1", "pending"],
      ["K1", "parked"],
      ["H2", "held"],
    ]);
    // Every name is a name, one that starts with "-" too (an address code may: base64url).
    await store.insert(lead("Message: flood"), { id: "F9", key: "f9", now: HOURS_AGO + 5, perHour: 0, group: "-3aiNT1HDXBdBEM4rzDDye" });
    for (const names of [["-3aiNT1HDXBdBEM4rzDDye"], ["--", "H2"]])
      expect(await leads(["discard", ...names], env)).toMatchObject({ code: 0, err: ["discarded 1 lead(s)"] });
    expect(await store.stats(Date.now())).toMatchObject({ held: 0 });
  });

  it("discard: refuses a lead that is not held (pending, parked, unknown), exit 1, no names, exit 2, and a line it cannot write out (none goes before every line is written): each discards nothing", async () => {
    const { store, env } = await seeded();
    for (const names of [["H1", "P1"], ["K1"], ["H1", "nothing-such"]])
      expect(await leads(["discard", ...names], env)).toMatchObject({
        code: 1,
        out: [],
        err: [expect.stringMatching(/^leads: not a held or restored lead's id or address code: .*; nothing was discarded/)],
      });
    expect(await leads(["discard"], env)).toMatchObject({ code: 2, err: [expect.stringMatching(/^leads: discard takes the ids or address codes/)] });
    const err: string[] = [];
    const failing = await runCli(
      ["discard", "H1"],
      env,
      () => Promise.reject(new Error("ENOSPC: no space left on device, write")),
      (line) => err.push(line),
    );
    expect([failing, err]).toEqual([1, [expect.stringMatching(/ENOSPC.*; nothing was changed$/)]]);
    expect(await store.stats(Date.now())).toMatchObject({ pending: 1, held: 1, parked: 1 });
  });

  it("retry re-queues parked leads and release sends held ones on, in the store a server has open", async () => {
    const { store, env } = await seeded();
    expect((await leads(["retry"], env)).out[0]).toMatch(/^re-queued 1 lead/);
    expect((await leads(["release", "H1"], env)).out[0]).toMatch(/^released 1 lead/);
    expect((await leads(["release", "H1"], env)).out[0]).toMatch(/^released 0 lead/);
    expect(await store.stats(Date.now())).toMatchObject({ pending: 3, parked: 0, held: 0 });
    expect(await store.get("K1")).toMatchObject({ status: "pending", attempts: 0, parkedReason: null, parkedStatus: null });
  });

  it("status: the engine, counts, the oldest pending lead's age, retention and the ceiling, as JSON", async () => {
    const { code, out } = await leads(["status"], { ...(await seeded()).env, LEAD_RETENTION_DAYS: "7" });
    expect(code).toBe(0);
    expect(JSON.parse(out.join("\n"))).toMatchObject({
      store: engine,
      pending: 1,
      held: 1,
      parked: 1,
      retentionDays: 7,
      leadsPerHour: 60,
      oldestPendingSeconds: expect.any(Number),
    });
  });

  it("backup: every lead, beside a server, into a new SQLite file where the undelivered wait as restored; never over a file; restored into the store it came from, what the store knows wins", async () => {
    const { store, env, dir } = await seeded();
    await store.insert(lead("Message: sent"), { id: "D1", key: "d", now: HOURS_AGO + 3, perHour: 60 });
    await store.claimDue(HOURS_AGO + 10, 10, 60_000);
    await store.delivered("D1", HOURS_AGO + 20, 86_400_000);
    await store.releaseClaims();
    const file = join(dir, "backups", "leads-backup.db");
    expect(await leads(["backup", file], env)).toMatchObject({ code: 0, out: [expect.stringMatching(/^backed up 4 lead\(s\) to /)] });
    expect(statSync(file).mode & 0o777).toBe(0o600); // personal data
    expect(statSync(join(dir, "backups")).mode & 0o777, "a folder it made").toBe(0o700);
    expect(existsSync(`${file}-wal`)).toBe(false); // one file, whole
    const opened = openDb({ file });
    onTestFinished(() => opened.close());
    const copy = leadStore(opened);
    const status = async (id: string) =>
      (({ status, parkedReason, parkedStatus, lead }) => ({ status, parkedReason, parkedStatus, text: lead?.text }))((await copy.get(id))!);
    expect(await status("P1")).toEqual({ status: "parked", parkedReason: "restored", parkedStatus: null, text: "Message: secret plans" });
    expect(await status("H1")).toMatchObject({ status: "parked", parkedReason: "restored" });
    // Parked for a wrong key then: it may have been retried and delivered since.
    expect(await status("K1")).toMatchObject({ status: "parked", parkedReason: "restored", parkedStatus: null });
    expect(await status("D1")).toMatchObject({ status: "delivered" });
    expect(await store.get("P1")).toMatchObject({ status: "pending" }); // the store itself is untouched
    expect(await leads(["backup", file], env)).toMatchObject({ code: 1, err: [expect.stringMatching(/exists already/)] });
    expect(readdirSync(join(dir, "backups")).filter((name) => name.includes(".partial"))).toEqual([]);
    expect(await leads(["backup"], env)).toMatchObject({ code: 2, err: ["leads: backup takes one file"] });
    expect(await leads(["backup", "--in-place"], env)).toMatchObject({ code: 2, err: ["leads: --in-place is restore's, not backup's"] });
    // The folder of a backup is the operator's (/tmp, a home): one that exists keeps its mode.
    const shared = join(dir, "shared");
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o1777);
    expect((await leads(["backup", join(shared, "bk.db")], env)).code).toBe(0);
    expect(statSync(shared).mode & 0o7777, "the folder's mode, after a backup into it").toBe(0o1777);
    // A name as the operator's shell sees it: npm runs the command in the package's folder, and says where the shell was.
    const relative = await leads(["backup", "relative.db"], { ...env, INIT_CWD: join(dir, "backups") });
    expect(relative).toMatchObject({ code: 0, out: [expect.stringContaining(` to ${join(dir, "backups", "relative.db")};`)] });
    // Restored into the store it came from, what the store knows wins: a lead delivered since stays delivered.
    await store.claimDue(Date.now(), 10, 60_000);
    await store.delivered("P1", Date.now(), 86_400_000);
    await store.insert(lead("Message: after the backup"), { id: "A1", key: "a", now: Date.now(), perHour: 60 });
    expect((await leads(["restore", file], env)).out[0]).toMatch(/^restored 0 of 4 lead\(s\)/);
    expect([(await store.get("P1"))?.status, (await store.get("A1"))?.status, (await store.get("H1"))?.status]).toEqual(["delivered", "pending", "held"]);
  });

  it("restore: into a store that lost everything, each lead comes back once, the undelivered parked for the operator, none sent unasked; one parked as restored may be discarded, one parked for a refusal not", async () => {
    const { env, dir } = await seeded();
    const file = join(dir, "bk.db");
    await leads(["backup", file], env);
    const empty = await serverStore(engine);
    const before = readFileSync(file);
    const restored = await leads(["restore", file], empty.env);
    expect(restored).toMatchObject({
      code: 0,
      out: [
        "restored 3 of 3 lead(s) from " + file + " (0 the store had already, kept as it has them)",
        expect.stringMatching(/^3 lead\(s\) not known to be delivered are parked as "restored"/),
      ],
    });
    expect(await empty.store.claimDue(Date.now(), 10, 60_000)).toEqual([]);
    expect(readFileSync(file).equals(before), "a backup is not changed by being read").toBe(true);
    expect((await leads(["list"], empty.env)).out.slice(1)).toEqual([
      `P1\tcontact\tparked\t3h\t${at(HOURS_AGO)}\trestored\t`,
      `K1\tcontact\tparked\t3h\t${at(HOURS_AGO + 1)}\trestored\t`,
      `H1\tcontact\tparked\t3h\t${at(HOURS_AGO + 2)}\trestored\tcode-h`,
    ]);
    // Fixing a key re-queues what it parked since, never the restored: those go only when named.
    await empty.store.insert(lead("Message: after the restore"), { id: "X1", key: "x", now: Date.now(), perHour: 60 });
    await empty.store.claimDue(Date.now(), 10, 60_000);
    await empty.store.park("X1", Date.now(), "http", 401);
    expect((await leads(["retry"], empty.env)).out).toEqual([
      expect.stringMatching(/^re-queued 1 lead/),
      '3 lead(s) parked as "restored" stay parked: name those the receiver never got to send them',
    ]);
    expect((await leads(["retry", "P1"], empty.env)).out[0]).toMatch(/^re-queued 1 lead/);
    expect((await empty.store.claimDue(Date.now(), 10, 60_000)).map((row) => row.id).sort()).toEqual(["P1", "X1"]);
    const again = await leads(["restore", file], empty.env);
    expect(again).toMatchObject({ code: 0, out: [expect.stringMatching(/^restored 0 of 3 lead\(s\)/), expect.stringMatching(/^2 lead/)] });
    // A lead parked as restored may be discarded (found at the receiver, or a flood's back from a backup); one parked for a refusal may not.
    expect(await leads(["discard", "K1"], empty.env)).toMatchObject({ code: 0, err: ["discarded 1 lead(s)"] });
    expect(await leads(["discard", "K1"], env)).toMatchObject({ code: 1 });
    expect((await empty.store.list(["parked"])).map((row) => row.id)).toEqual(["H1"]);
  });

  it("restore: a file that is no lead store's backup is refused before the store is touched (a lost volume stays lost, not emptied)", async () => {
    const { dir } = await seeded();
    const other = join(dir, "other.db");
    const db = new DatabaseSync(other);
    db.exec("CREATE TABLE notes (x TEXT)");
    db.close();
    const lost = await mkdtemp(join(tmpdir(), "lost-"));
    const env = { ...(await serverStore(engine)).env, DATA_DIR: lost };
    const refused = [expect.stringMatching(/holds no leads table: it is no lead store's backup/)];
    expect(await leads(["restore", other], env)).toMatchObject({ code: 1, err: refused });
    expect(existsSync(join(lost, "leads.db"))).toBe(false);
  });

  it("restore --in-place: a store brought back by other means (a snapshot, a copied file) parks what it cannot know to be delivered", async () => {
    const { store, env } = await seeded();
    const parked = [expect.stringMatching(/^3 lead\(s\) not known to be delivered are parked as "restored"/)];
    expect(await leads(["restore", "--in-place"], env)).toMatchObject({ code: 0, out: parked });
    expect(await store.claimDue(Date.now(), 10, 60_000)).toEqual([]);
    expect(await store.stats(Date.now())).toMatchObject({ pending: 0, held: 0, parked: 3 });
    expect(await leads(["restore", "--in-place", "x.db"], env)).toMatchObject({ code: 2 });
  });

  it("refuses, exit 2, changing nothing, a flag it does not know (an operator's `retry --all` was read as an id) and the funnel's on another command (parseArgs took them, leaving no ids: all)", async () => {
    const { store, env } = await seeded();
    for (const [argv, said] of [
      [["retry", "--all"], /^leads: Unknown option '--all'/],
      [["release", "--days", "7"], /^leads: --json and --days are the funnel's/],
      [["retry", "--json"], /^leads: --json and --days are the funnel's/],
    ] as const)
      expect(await leads([...argv], env)).toMatchObject({ code: 2, out: [], err: [expect.stringMatching(said)] });
    expect(await store.stats(Date.now())).toMatchObject({ held: 1, parked: 1 });
  });
});

describe.each(ENGINES)("outcomes by reference, on %s", (engine) => {
  it("won and lost mark a lead by its reference, again to correct it, and funnel --json shows clients won and their value under the lead's day and source; an unknown or erased reference is refused", async () => {
    const { store, env } = await serverStore(engine);
    const [ref, now] = ["20261123-7F3KQ9ZA", Date.now()];
    const source = { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" } as const;
    await store.insert({ ...lead("Message: a website"), source }, { id: ref, key: "w", now, perHour: 60, device: "phone" });
    const funnel = async () => {
      const { days, sources } = JSON.parse((await leads(["funnel", "--json"], env)).out.join("\n")) as {
        days: {
          date: string;
          won: number;
          value: number;
          byDevice: Record<string, { won: number }>;
          bySource: Record<string, { won: number; value: number }>;
        }[];
        sources: { key: string; won: number; value: number }[];
      };
      const day = days.at(-1)!;
      return { date: day.date, won: day.won, phone: day.byDevice.phone!.won, spring: day.bySource["newsletter/email/spring"], worth: sources[0] };
    };
    const won = await leads(["won", ref, "--value", "R 85 000"], env);
    expect(won).toMatchObject({ code: 0, err: [] });
    expect(won.out[0]).toMatch(/^20261123-7F3KQ9ZA: won, R 85\s000; the funnel counts it on the day the lead was sent$/);
    expect(await funnel()).toEqual({
      date: dayOf(now),
      won: 1,
      phone: 1,
      spring: expect.objectContaining({ won: 1, value: 85_000 }),
      worth: expect.objectContaining({ key: "newsletter/email/spring", won: 1, value: 85_000 }),
    });
    expect((await leads(["lost", ref], env)).code).toBe(0);
    expect(await funnel()).toMatchObject({ won: 0, spring: undefined }); // a lost lead adds nothing
    expect((await leads(["won", ` ${ref} `, "--value", "90,000"], env)).code).toBe(0); // pasted with its spaces
    expect(await funnel()).toMatchObject({ won: 1, spring: { won: 1, value: 90_000 } });
    const refusal = ["leads: 20261123-ZZZZZZZZ is not known, or was erased; nothing was marked"];
    expect(await leads(["won", "20261123-ZZZZZZZZ"], env)).toMatchObject({ code: 1, out: [], err: refusal });
    expect((await leads(["erase", ref, "--yes"], env)).code).toBe(0);
    expect(await leads(["lost", ref], env)).toMatchObject({ code: 1, err: [refusal[0]!.replace("20261123-ZZZZZZZZ", ref)] });
    expect(await funnel()).toMatchObject({ won: 1, spring: { won: 1, value: 90_000 } }); // still counted, by no reference
  });

  it("with Zoho CRM, won and lost refuse: its outcomes come from the CRM; without it, outcomes (the CRM's read) refuses", async () => {
    const { db, store, env } = await serverStore(engine);
    await store.insert(lead("Message: a website"), { id: "20261123-7F3KQ9ZA", key: "w", now: Date.now(), perHour: 60 });
    const zoho = {
      FORM_PROVIDER: "zoho-crm",
      ZOHO_CLIENT_ID: "1000.X",
      ZOHO_CLIENT_SECRET: "s",
      ZOHO_REFRESH_TOKEN: "1000.r",
      ZOHO_REFERENCE_FIELD: "Website_Reference",
    };
    for (const command of ["won", "lost"])
      expect(await leads([command, "20261123-7F3KQ9ZA"], { ...env, ...zoho })).toMatchObject({
        code: 1,
        err: [expect.stringMatching(/^leads: with FORM_PROVIDER=zoho-crm, outcomes come from Zoho CRM, one source of truth/)],
      });
    expect(await leads(["outcomes"], env)).toMatchObject({
      code: 1,
      err: ["leads: outcomes reads Zoho CRM's; with FORM_PROVIDER=outbox, record them with won and lost"],
    });
    expect(await outcomes(db).of("20261123-7F3KQ9ZA")).toMatchObject({ outcome: "none" });
  });
});

describe("won's --value, whole rand as people write it", () => {
  it.each([
    ["85000", 85_000],
    ["85 000", 85_000],
    ["85\u00a0000", 85_000],
    ["85,000", 85_000],
    ["R 85 000", 85_000],
    ["R85,000", 85_000],
    ["1 250 000", 1_250_000],
  ])("takes %j as %d", (given, rand) => expect(randOf(given)).toBe(rand));

  it.each([
    ["85000.50", "is whole rand: leave the cents out"],
    ["85,50", "is whole rand: leave the cents out"],
    ["85.000", /^must be whole rand/],
    ["85k", /^must be whole rand/],
    ["$85000", /^must be whole rand/],
    ["1 000,000", /^must be whole rand/],
    ["R -5", /^must be whole rand/],
    ["0", /^must be from R 1/],
  ])("refuses %j, exit 2, saying why", async (given, why) => {
    expect(randOf(given)).toMatch(why);
    const { code, err } = await leads(["won", "20261123-7F3KQ9ZA", "--value", given], {});
    expect({ code, err }).toEqual({ code: 2, err: [expect.stringMatching(/^leads: --value /)] });
  });

  it("refuses, exit 2, a value with lost, no reference or something else, and a reference with outcomes", async () => {
    for (const [argv, said] of [
      [["lost", "20261123-7F3KQ9ZA", "--value", "5"], "leads: --value is won's, not lost's"],
      [["won"], "leads: won takes one reference, the lead's (such as 20261122-7F3KQ9ZA)"],
      [["won", "ada@example.com"], "leads: won takes one reference, the lead's (such as 20261122-7F3KQ9ZA)"],
      [["won", "20261123-7F3KQ9ZA", "--json"], "leads: --json is not won's"],
      [["outcomes", "20261123-7F3KQ9ZA"], "leads: outcomes takes no references: it reads every lead Zoho CRM holds"],
    ] as const)
      expect(await leads([...argv], {})).toMatchObject({ code: 2, err: [said] });
  });
});

describe("npm run leads, on SQLite alone", () => {
  it("says so, exit 1, when the store cannot be read, and changes nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    await writeFile(join(dir, "leads.db"), "not a database\n");
    const { code, err } = await leads(["retry"], { DATA_DIR: dir });
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(/cannot be used.*nothing was changed/);
  });

  it("waits up to 3 s for a server's lock; held longer, says the store could not be used and changes nothing", async () => {
    const { store, env, dir } = await serverStore("sqlite");
    await store.insert(lead("Message: held"), { id: "H1", key: "h", now: HOURS_AGO, perHour: 0 });
    const server = new DatabaseSync(join(dir, "leads.db"));
    server.exec("BEGIN IMMEDIATE");
    expect(await leads(["release"], env)).toMatchObject({ code: 1, err: [expect.stringMatching(/could not be used.*; nothing was changed$/)] });
    server.exec("COMMIT");
    server.close();
    expect(await store.stats(Date.now())).toMatchObject({ held: 1 });
    // Another process, as a server is: this one's wait blocks its own event loop.
    const hold = `const db = new (require("node:sqlite").DatabaseSync)(process.argv[1]); db.exec("BEGIN IMMEDIATE"); console.log("held"); setTimeout(() => db.exec("COMMIT"), 1000);`;
    const other = spawn(process.execPath, ["-e", hold, join(dir, "leads.db")]);
    await once(other.stdout, "data");
    expect(await leads(["release"], env)).toMatchObject({ code: 0, out: [expect.stringMatching(/^released 1 lead/)] });
  });

  it("a data folder with no store yet: list and status say so, exit 0, and make none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    const none = [`leads: no lead store at ${join(dir, "leads.db")} yet (DATA_DIR=${dir})`];
    for (const command of ["list", "status"]) expect(await leads([command], { DATA_DIR: dir })).toMatchObject({ code: 0, out: [], err: none });
    expect((await leads(["retry"], { DATA_DIR: dir })).code).toBe(1);
    expect(existsSync(join(dir, "leads.db"))).toBe(false);
  });

  it("funnel: the last days as JSON with --json, or a table; a bad --days, an unknown flag or an id is exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    const json = await leads(["funnel", "--json", "--days", "3"], { DATA_DIR: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out.join("\n"))).toMatchObject({ days: { length: 3 }, sources: [] });
    const table = await leads(["funnel"], { DATA_DIR: dir });
    expect(table.out[0]).toBe("The calculator's funnel, last 7 days (Africa/Johannesburg)");
    // Each table with its title and heads, a blank line between: a row a day and the total, a bar a step, a row a device, then no source yet.
    expect(table.out).toHaveLength(2 + 7 + 1 + 1 + (2 + 7) + 1 + (2 + 3) + 1 + 2);
    expect(table.out.at(-1)).toBe("No source brought a visitor in the last 7 days.");
    expect(await leads(["funnel", "--days", "0"], { DATA_DIR: dir })).toMatchObject({ code: 2, err: ["leads: --days must be a whole number from 1 to 400"] });
    for (const [argv, said] of [
      [["--days"], /^leads: Option '--days <value>' argument missing/],
      [["--weeks", "2"], /^leads: Unknown option '--weeks'/],
      [["7"], /^leads: Unexpected argument '7'/],
    ] as const)
      expect(await leads(["funnel", ...argv], { DATA_DIR: dir })).toMatchObject({ code: 2, err: [expect.stringMatching(said)] });
  });

  it("funnel --csv: the header alone on an empty funnel; with --json, or --csv and --revoke-all on another command, exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    expect(await leads(["funnel", "--csv", "--days", "3"], { DATA_DIR: dir })).toEqual({
      code: 0,
      out: ["day,source,source name,device,landed,step 2,step 3,step 4,step 5,sent,contact,won,value (rand)\r"],
      err: [],
    });
    for (const [argv, said] of [
      [["funnel", "--csv", "--json"], /^leads: --csv or --json, not both/],
      [["list", "--csv"], /^leads: --csv is the funnel's, not list's/],
      [["funnel", "--revoke-all"], /^leads: --revoke-all is funnel-link's, not funnel's/],
    ] as const)
      expect(await leads([...argv], { DATA_DIR: dir })).toMatchObject({ code: 2, out: [], err: [expect.stringMatching(said)] });
  });

  it("funnel-link: an address on the public port (SITE_ORIGIN's first, else localhost and PORT) open for --days N (7, at most 90); --revoke-all a new key, so the link before no longer opens", async () => {
    const { db, env } = await serverStore("sqlite");
    const link = await leads(["funnel-link"], env);
    expect(link).toMatchObject({ code: 0, out: [expect.stringMatching(/^http:\/\/localhost:3000\/funnel\/\d+\.[\w-]{43}$/)] });
    expect(link.err[0]).toMatch(/^anyone holding this address sees the funnel until \d{4}-\d\d-\d\dT\d\d:\d\dZ; /);
    const token = link.out[0]!.split("/").pop()!;
    const key = await linkKey(db);
    expect([6.9, 7].map((days) => linkValid(key, token, Date.now() + days * 86_400_000))).toEqual([true, false]);
    const site = { ...env, SITE_ORIGIN: "https://www.kopano.example,https://kopano.example", PORT: "8080" };
    expect((await leads(["funnel-link", "--days", "90"], site)).out[0]).toMatch(/^https:\/\/www\.kopano\.example\/funnel\/\d+\./);

    expect(await leads(["funnel-link", "--revoke-all"], env)).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^every funnel link given so far no longer opens/)],
    });
    const renewed = await linkKey(db);
    expect([linkValid(renewed, token, Date.now()), renewed.equals(key)]).toEqual([false, false]);
    for (const [argv, said] of [
      [["--days", "91"], /^leads: --days must be a whole number from 1 to 90$/],
      [["--days", "0"], /^leads: --days must be a whole number from 1 to 90$/],
      [["--revoke-all", "--days", "3"], /^leads: --revoke-all gives no link/],
      [["--json"], /^leads: funnel-link takes --days N or --revoke-all alone/],
      [["x"], /^leads: Unexpected argument 'x'/],
    ] as const)
      expect(await leads(["funnel-link", ...argv], env)).toMatchObject({ code: 2, out: [], err: [expect.stringMatching(said)] });
    expect((await linkKey(db)).equals(renewed), "a refused command changed nothing").toBe(true);
  });

  it("answers anything else with its usage and exit code 2", async () => {
    expect(await leads(["delete-everything"], {})).toMatchObject({
      code: 2,
      out: [
        "usage: npm run -s leads -- list | export | retry [id ...] | release [id ...] | discard <id | address code> ... | status | backup <file> | restore <file> | restore --in-place | funnel [--json | --csv] [--days N] | funnel-link [--days N] | funnel-link --revoke-all | find <email | phone | reference> [--json] | erase <email | phone | reference> [--yes] | campaigns add|remove|list [name] | sites add|remove|list [host] | won <reference> [--value <rand>] | lost <reference> | outcomes",
      ],
    });
    expect((await leads(["--help"], {})).code).toBe(0);
  });
});

describe.each(ENGINES)("npm run leads -- campaigns and sites, on %s", (engine) => {
  it("add, list (one a line) and remove, tidied as the source rule tidies; adding one listed or removing one not says so, exit 0", async () => {
    const { env } = await serverStore(engine);
    expect(await leads(["campaigns", "add", "Autumn_Offer"], env)).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^autumn-offer added to the campaigns: /)],
    });
    expect(await leads(["campaigns", "add", "autumn-offer"], env)).toMatchObject({
      code: 0,
      out: ["autumn-offer is on the campaigns already: nothing was changed"],
    });
    expect((await leads(["campaigns", "add", "spring"], env)).code).toBe(0);
    expect((await leads(["sites", "add", "www.Example.co.za"], env)).code).toBe(0);
    expect(await leads(["campaigns", "list"], env)).toEqual({ code: 0, out: ["autumn-offer", "spring"], err: [] });
    expect(await leads(["sites", "list"], env)).toEqual({ code: 0, out: ["example.co.za"], err: [] });
    expect(await leads(["campaigns", "remove", "spring"], env)).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^spring removed from the campaigns: /)],
    });
    expect(await leads(["campaigns", "remove", "spring"], env)).toMatchObject({ code: 0, out: ["spring is not on the campaigns: nothing was changed"] });
    expect(await leads(["sites", "remove", "example.co.za"], env)).toMatchObject({ code: 0 });
    expect((await leads(["campaigns", "list"], env)).out).toEqual(["autumn-offer"]);
    expect((await leads(["sites", "list"], env)).out).toEqual([]);
  });

  it("removing a name CAMPAIGNS or REFERRER_SITES also names says it comes back at the next start", async () => {
    const { env } = await serverStore(engine);
    await leads(["campaigns", "add", "spring"], env);
    await leads(["sites", "add", "example.co.za"], env);
    expect((await leads(["campaigns", "remove", "spring"], { ...env, CAMPAIGNS: "spring" })).out[1]).toBe(
      "CAMPAIGNS names it too: it comes back at the next start unless it is taken out there as well",
    );
    expect((await leads(["sites", "remove", "example.co.za"], { ...env, REFERRER_SITES: "example.co.za" })).out[1]).toMatch(/^REFERRER_SITES names it too/);
  });

  it("refuses, exit 2, writing nothing, a name the source rule would not keep or that may name a person, saying why; a wrong use is exit 2 too", async () => {
    const { env } = await serverStore(engine);
    for (const [list, name, why] of [
      ["campaigns", "jane@x.co", "it has an @"],
      ["campaigns", "promo-0825551234", "it has seven or more digits in a row"],
      ["campaigns", "spring offer", "it has a space"],
      ["campaigns", "x".repeat(41), "it is longer than 40 characters"],
      ["campaigns", "direct", "it is a word a source's key is made of"],
      ["sites", "localhost", "it is not a host name"],
    ])
      expect(await leads([list!, "add", name!], env), name).toMatchObject({
        code: 2,
        out: [],
        err: [expect.stringMatching(new RegExp(`^leads: ".*" is refused as a (campaign name|host): ${why}.*; nothing was written$`))],
      });
    for (const argv of [["campaigns"], ["campaigns", "add"], ["campaigns", "add", "a", "b"], ["sites", "list", "x.com"], ["campaigns", "list", "--json"]])
      expect((await leads(argv, env)).code, argv.join(" ")).toBe(2);
    expect((await leads(["campaigns", "list"], env)).out).toEqual([]);
    expect((await leads(["sites", "list"], env)).out).toEqual([]);
  });
});

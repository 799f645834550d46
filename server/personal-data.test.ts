/**
 * `npm run -s leads -- find` and `erase` on a store a "server" keeps open (so SQLite's WAL is not folded away by the
 * last connection closing: what the files' bytes hold is the command's doing), on SQLite and PostgreSQL, and an outbox.
 */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { ENGINES, type Engine } from "../tests/support/engines";
import { quietLog } from "../tests/support/quiet-log";
import { createDraftStore } from "./drafts";
import { dayOf } from "./funnel";
import { outcomes } from "./leads/outcomes";
import { asked, normalPhone } from "./personal-data";
import { leads, serverStores } from "../tests/support/leads-cli";
import type { Lead } from "./leads/types";

const ref = (n: number) => `20261122-0000000${n}`;
const HOURS_AGO = Date.now() - 3 * 3600_000;
const THANDI = "Thandi.Nkosi@Example.co.za";

/** A calculator request as app/calculator/lead.server.ts makes it; `words` marks its text. */
const calculator = (email: string, phone: string, words: string): Lead => ({
  kind: "calculator",
  subject: "New cost estimate request from Acme",
  fromName: "Acme",
  replyTo: email,
  text: `Service: SEO\nDescription: ${words}\nCompany: Acme\nEmail: ${email}\nPhone: ${phone}`,
  fields: { company: "Acme", phone, service: "SEO", message: words },
});
const contact = (email: string, words: string): Lead => ({
  kind: "contact",
  subject: "New contact form message from Thandi",
  fromName: "Thandi",
  replyTo: email,
  text: `Name: Thandi\nEmail: ${email}\nMessage: ${words}`,
  fields: { name: "Thandi", service: "SEO", message: words },
});
/** A lead stored before `fields`: its phone only in its text. */
const older = (email: string, phone: string, words: string): Lead => {
  const { fields: _, ...lead } = calculator(email, phone, words);
  return lead;
};

/** Thandi's words, each in one of her records, and another person's. */
const SECRETS = ["PENDING-PLANS-ONE", "HELD-PLANS-TWO", "PARKED-PLANS-THREE", "DELIVERED-PLANS-FOUR", "RETAINED-PLANS-FIVE"];
const OTHERS = "SOMEONE-ELSES-PLANS";

const serverStore = serverStores();

/**
 * Thandi's leads: pending (1: her email in other case and spaces, phone with dashes), held (2), parked (3: before
 * `fields`, phone as +27 (0)…), in Zoho CRM (4), delivered with its text erased (5); and another person's pending (6).
 */
async function seeded(engine: Engine) {
  const server = await serverStore(engine);
  const { store } = server;
  await store.insert(calculator(` ${THANDI.toUpperCase()} `, "082-555-1234", SECRETS[0]!), { id: ref(1), key: "k1", now: HOURS_AGO, perHour: 60 });
  await store.insert(contact(THANDI, SECRETS[1]!), { id: ref(2), key: "k2", now: HOURS_AGO + 1, perHour: 0 });
  await store.insert(older("t.nkosi@work.example", "+27 (0)82 555 1234", SECRETS[2]!), { id: ref(3), key: "k3", now: HOURS_AGO + 2, perHour: 60 });
  await store.insert(calculator("thandi@home.example", "0825551234", SECRETS[3]!), { id: ref(4), key: "k4", now: HOURS_AGO + 3, perHour: 60 });
  await store.insert(calculator("thandi@old.example", "0825551234", SECRETS[4]!), { id: ref(5), key: "k5", now: HOURS_AGO + 4, perHour: 60 });
  await store.insert(calculator("ada@example.com", "+27 11 000 0000", OTHERS), { id: ref(6), key: "k6", now: HOURS_AGO + 5, perHour: 60 });
  await store.claimDue(HOURS_AGO + 10, 10, 60_000);
  await store.park(ref(3), HOURS_AGO + 10, "zoho:INVALID_DATA");
  await store.delivered(ref(4), HOURS_AGO + 10, 30 * 86_400_000, "5725767000000524157");
  await store.delivered(ref(5), HOURS_AGO + 10, 0);
  await store.releaseClaims();
  const kept = async () => (await store.list(["pending", "held", "parked", "delivered"])).map((r) => r.id);
  return { ...server, kept };
}

/** The table's rows (between its header and the notes), as "where id status". */
const rows = (out: string[]) =>
  out
    .slice(out.findIndex((l) => l.startsWith("where\t")) + 1)
    .filter((l) => !l.startsWith("note: ") && l.includes("\t"))
    .map((l) => l.split("\t"))
    .map(([where, id, , status]) => `${where} ${id} ${status}`);

/** Every byte of the SQLite store's files (the database and its WAL), as text. */
const storeBytes = (dir: string) =>
  ["leads.db", "leads.db-wal"]
    .map((f) => join(dir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString("latin1"))
    .join("\n");

describe("what a person is named by", () => {
  it("an email whatever its case and surrounding spaces, a South African phone in any of its spellings, a reference exactly", () => {
    expect(asked("  Thandi.Nkosi@Example.CO.ZA ")).toEqual({ kind: "email", value: "thandi.nkosi@example.co.za" });
    const spellings =
      "+27 82 555 1234|082 555 1234|0825551234|082-555-1234|(082) 555 1234|+27 (0)82 555 1234|0027 82 555 1234|27825551234|27 (0)82 555 1234|82 555 1234";
    for (const phone of spellings.split("|")) expect(asked(phone), phone).toEqual({ kind: "phone", value: "0825551234" });
    expect(normalPhone("+44 20 7946 0958")).toBe("+442079460958");
    expect(normalPhone("082 555 1235")).not.toBe(normalPhone("082 555 1234"));
    expect(asked(ref(7))).toEqual({ kind: "reference", value: ref(7) });
    for (const neither of ["20261122-0000000i", "thandi", "12345", "Thandi Nkosi"]) expect(asked(neither), neither).toBeUndefined();
  });
});

describe.each(ENGINES)("on %s", (engine) => {
  it("find lists every lead that holds an email, a phone or a reference: pending, held, parked, delivered, and delivered with its text gone; --json each in full", async () => {
    const { env } = await seeded(engine);
    const email = await leads(["find", "thandi.nkosi@example.co.za"], env);
    expect(email.code).toBe(0);
    expect(email.out[0]).toBe("2 record(s) hold thandi.nkosi@example.co.za (email):");
    expect(rows(email.out)).toEqual([`leads ${ref(1)} pending`, `leads ${ref(2)} held`]);
    // 5 held the same phone, but its text is gone: only its reference finds it.
    expect(rows((await leads(["find", "+27 82 555 1234"], env)).out)).toEqual([
      `leads ${ref(1)} pending`,
      `leads ${ref(3)} parked`,
      `leads ${ref(4)} delivered`,
    ]);
    const reference = await leads(["find", ref(5)], env);
    expect(reference.out.find((l) => l.startsWith(`leads\t${ref(5)}`))).toMatch(/\tcalculator\tdelivered\t.*Z\ttext erased \(retention\)$/);
    expect((await leads(["find", ref(4)], env)).out.find((l) => l.startsWith(`leads\t${ref(4)}`))).toMatch(/\tZoho CRM record 5725767000000524157$/);
    expect(await leads(["find", "nobody@example.com"], env)).toMatchObject({
      code: 0,
      out: expect.arrayContaining(["nothing here holds nobody@example.com (email)"]),
    });
    // --json: each record in full, the copy a person may ask for.
    const { out } = await leads(["find", "--json", "082 555 1234"], env);
    const records = out.map((l) => JSON.parse(l) as { where: string; status: string; record: Lead | null });
    expect(records.map((r) => r.status)).toEqual(["pending", "parked", "delivered"]);
    expect(records[0]!.record).toMatchObject({ id: ref(1), replyTo: ` ${THANDI.toUpperCase()} `, fields: { message: SECRETS[0] } });
    expect(records[1]!.record).toMatchObject({ id: ref(3), text: expect.stringContaining("Phone: +27 (0)82 555 1234") });
    const bare = (await leads(["find", "--json", ref(5)], env)).out.map((l) => JSON.parse(l) as unknown);
    expect(bare).toEqual([{ where: "leads", status: "delivered", note: "text erased (retention)", record: null }]);
  });

  it("erase erases every lead that holds them and leaves another person's; a second find finds nothing; it says what the engine keeps beyond it", async () => {
    const { env, kept, dir } = await seeded(engine);
    // Before: every one of them is in SQLite's files (in the WAL, which the server's connection keeps).
    if (engine === "sqlite") for (const secret of [...SECRETS, OTHERS]) expect(storeBytes(dir).includes(secret), secret).toBe(true);
    const erased = await leads(["erase", "--yes", THANDI, "082 555 1234", ref(5)], env);
    expect(erased.err).toEqual([]);
    expect(erased.code).toBe(0);
    expect(erased.out[0]).toBe("erased 5 record(s) holding thandi.nkosi@example.co.za (email), 0825551234 (phone), 20261122-00000005 (reference):");
    expect(rows(erased.out).map((row) => row.split(" ")[1])).toEqual([1, 2, 3, 4, 5].map(ref));
    expect(erased.out).toContain("A second look finds nothing.");
    for (const query of [THANDI, "0825551234", ref(5)]) expect((await leads(["find", query], env)).out[0]).toMatch(/^nothing here holds/);
    expect(await kept()).toEqual([ref(6)]);
    if (engine === "sqlite") {
      // Overwritten (secure_delete) and the WAL emptied: none of her text is in the files' bytes.
      const bytes = storeBytes(dir);
      for (const secret of SECRETS) expect(bytes.includes(secret), secret).toBe(false);
      for (const trace of ["thandi", "Thandi", "555-1234", "555 1234"]) expect(bytes.includes(trace), trace).toBe(false);
      expect(bytes.includes(OTHERS)).toBe(true);
      expect(erased.out).toContain(
        "note: Only this data folder is looked in: another container's, or a copy or backup of one, keeps its own store and outbox.",
      );
    } else
      expect(erased.out.join("\n")).toMatch(
        /note: PostgreSQL is shared by every container, but each keeps its own outbox: run this in each\. .*VACUUM.*WAL, archives, replicas and backups/,
      );
  });

  it("a reference whose lead retention removed is found in the outcomes; erase removes the reference and leaves the count", async () => {
    const { env, db, store } = await seeded(engine);
    await store.purge(HOURS_AGO + 2 * 86_400_000, 0); // the delivered leads' rows gone
    await outcomes(db).mark(ref(5), "won", 85_000, Date.now());
    const found = await leads(["find", ref(5)], env);
    expect(rows(found.out)).toEqual([`outcomes ${ref(5)} won`]);
    expect((await leads(["erase", ref(5)], env)).out[0]).toBe(`erased 1 record(s) holding ${ref(5)} (reference):`);
    expect((await leads(["find", ref(5)], env)).out[0]).toMatch(/^nothing here holds/);
    expect(await outcomes(db).read(dayOf(HOURS_AGO), dayOf(Date.now()))).toEqual([expect.objectContaining({ outcome: "won", value: 85_000 })]);
  });

  it("erase asks on a terminal before a lead the agency has not received (without one it needs --yes: personal-data.spec); a delivered lead it erases without asking", async () => {
    const { env, kept } = await seeded(engine);
    const all = await kept();

    const questions: string[] = [];
    const no = await leads(["erase", THANDI], env, async (q) => (questions.push(q), false));
    expect(questions).toEqual(["2 of these leads have not reached the agency yet: erased, they never will. Erase all 2? [y/N] "]);
    expect(no.code).toBe(1);
    expect(no.out.slice(0, 4)).toEqual([
      `2 record(s) hold thandi.nkosi@example.co.za (email):`,
      "where\tid\tkind\tstatus\taccepted\tnote",
      expect.stringContaining(ref(1)),
      expect.stringContaining(ref(2)),
    ]);
    expect(no.out.at(-1)).toBe("nothing was erased");
    expect(await kept()).toEqual(all);

    const yes = await leads(["erase", THANDI], env, async () => true);
    expect(yes.code).toBe(0);
    expect(await kept()).toEqual([ref(3), ref(4), ref(5), ref(6)]);

    const ask = vi.fn(async () => true);
    expect((await leads(["erase", ref(4)], env, ask)).code).toBe(0);
    expect(ask).not.toHaveBeenCalled();
    expect(await kept()).toEqual([ref(3), ref(5), ref(6)]);
  });

  it("a lead whose send had begun: it says so, and erases the outbox line that send writes a moment later", async () => {
    const { env, store, dir } = await seeded(engine);
    const outbox = join(dir, "outbox.jsonl");
    // The server claims the pending leads and is sending one to the outbox as the command erases it.
    expect((await store.claimDue(Date.now(), 10, 60_000)).map((r) => r.id)).toEqual([ref(1), ref(6)]);
    const erasing = leads(["erase", "--yes", ref(1)], { ...env, FORM_TIMEOUT_MS: "1000" });
    await vi.waitFor(async () => expect(await store.get(ref(1))).toBeUndefined(), { timeout: 8_000, interval: 20 });
    const line = { id: ref(1), at: new Date().toISOString(), subject: "s", to: "t", from_name: "Acme", reply_to: THANDI, message: SECRETS[0] };
    appendFileSync(outbox, `${JSON.stringify(line)}\n`);
    const { code, out, err } = await erasing;
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(rows(out)).toEqual([`leads ${ref(1)} pending`, `outbox ${ref(1)} delivered`]);
    expect(out).toContain("1 of them was being sent as it was erased: the form service may have received it.");
    expect(readFileSync(outbox, "utf8")).not.toContain(SECRETS[0]);
    // Its outcome, when the send ends, finds no row to write into: the lead does not come back.
    expect(await store.delivered(ref(1), Date.now(), 86_400_000)).toBe(0);
    expect(await store.get(ref(1))).toBeUndefined();
  });

  it("drafts and receipts as the app keeps them: found by the email, phone or reference in them, erased without asking; another person's stay", async () => {
    const { env, db } = await seeded(engine);
    const drafts = createDraftStore({ db, log: quietLog, waitMs: 10_000 });
    onTestFinished(() => drafts.close());
    /** Owners as the app makes them: the SHA-256 of a browser's cookie token. */
    const [thandi, ada] = ["thandi", "ada"].map((token) => createHash("sha256").update(token).digest("base64url")) as [string, string];
    const mine = drafts.forClient("client-a");
    await mine.save(thandi, {
      fields: { "state.step": "5", "state.email": THANDI, "state.phone": "082 555 1234", "state.description": "DRAFT-PLANS" },
      errors: null,
    });
    await mine.save(thandi, { values: { name: "Thandi", email: " Thandi@Drafts.example ", service: "seo", message: "CONTACT-DRAFT-PLANS" }, errors: {} });
    await mine.save(thandi, { reference: ref(1), service: "seo", timeframe: "1-3", complexity: "medium", estimate: 5000 });
    const other = await drafts
      .forClient("client-b")
      .save(ada, { fields: { "state.step": "5", "state.email": "ada@example.com", "state.description": OTHERS } });

    const found = await leads(["find", "0825551234"], env);
    expect(rows(found.out)).toEqual([`leads ${ref(1)} pending`, `leads ${ref(3)} parked`, `leads ${ref(4)} delivered`, "drafts - draft"]);
    expect(found.out.find((l) => l.startsWith("drafts\t"))).toMatch(/^drafts\t-\tcalculator draft\tdraft\t\texpires in 60m$/);
    expect((await leads(["find", "thandi@drafts.example"], env)).out.find((l) => l.startsWith("drafts\t"))).toMatch(/^drafts\t-\tcontact draft\tdraft\t/);
    expect((await leads(["find", ref(1)], env)).out.filter((l) => l.includes("\t"))).toEqual([
      expect.stringMatching(/^where\t/),
      expect.stringMatching(new RegExp(`^leads\t${ref(1)}\tcalculator\tpending\t`)),
      expect.stringMatching(new RegExp(`^drafts\t${ref(1)}\treceipt\tsent\t`)),
    ]);

    // A draft is nothing the agency has yet to receive: erased without a question.
    const ask = vi.fn(async () => false);
    const draftOnly = await leads(["erase", "thandi@drafts.example"], env, ask);
    expect(draftOnly.code).toBe(0);
    expect(rows(draftOnly.out)).toEqual(["drafts - draft"]);
    expect(ask).not.toHaveBeenCalled();
    const all = await leads(["erase", "--yes", THANDI, "082 555 1234", ref(1)], env);
    expect(all.code).toBe(0);
    expect(rows(all.out).filter((row) => row.startsWith("drafts"))).toEqual(["drafts - draft", `drafts ${ref(1)} sent`]);
    for (const query of [THANDI, "thandi@drafts.example", "0825551234", ref(1)])
      expect((await leads(["find", query], env)).out[0]).toMatch(/^nothing here holds/);
    expect(await drafts.load(ada, other)).toMatchObject({ fields: { "state.description": OTHERS } });
    expect(rows((await leads(["find", "ada@example.com"], env)).out)).toEqual([`leads ${ref(6)} pending`, "drafts - draft"]);
    if (engine === "sqlite")
      for (const secret of ["DRAFT-PLANS", "CONTACT-DRAFT-PLANS"]) expect(storeBytes(env.DATA_DIR!).includes(secret), secret).toBe(false);
  });
});

describe("on SQLite alone", () => {
  it("find and erase refuse what is neither an email, a phone nor a reference, and the other command's flag, exit 2", async () => {
    const { env } = await seeded("sqlite");
    expect(await leads(["find", "Thandi"], env)).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/"Thandi" is not an email address, a phone number or a reference/)],
    });
    expect(await leads(["find", "--yes", THANDI], env)).toMatchObject({ code: 2, err: ["leads: --yes is erase's; nothing was done"] });
    expect(await leads(["erase", "--json", THANDI], env)).toMatchObject({ code: 2, err: ["leads: --json is find's; nothing was done"] });
    expect((await leads(["find"], env)).code).toBe(2);
  });

  it("find says what it cannot reach: the form service's copy, and other data folders", async () => {
    const { env } = await seeded("sqlite");
    const { out } = await leads(["find", THANDI], { ...env, FORM_ACCESS_KEY: "k" });
    expect(out.filter((line) => line.startsWith("note: "))).toEqual([
      "note: As set now, Web3Forms emails each delivered lead to hello@kopanodigital.co.za: delete those emails there (and wherever they were forwarded).",
      "note: Only this data folder is looked in: another container's, or a copy or backup of one, keeps its own store and outbox.",
    ]);
  });

  it("erase says so, exit 1, when a server's read keeps the WAL from being emptied: the erased text may still be in it; the next erase empties it", async () => {
    const { env, dir } = await seeded("sqlite");
    const reader = new DatabaseSync(join(dir, "leads.db"));
    onTestFinished(() => reader.close());
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM leads").get(); // a read transaction from before the erasure
    const { code, err } = await leads(["erase", "--yes", ref(4)], env);
    expect(code).toBe(1);
    expect(err).toEqual([
      expect.stringMatching(/write-ahead log \(.*leads\.db-wal\) could not be emptied while a server read it: it may still hold erased text; run erase again$/),
    ]);
    reader.exec("COMMIT");
    expect(storeBytes(dir).includes(SECRETS[3]!), "still in the files, as it said").toBe(true);
    // Run again, it finds nothing, and empties the WAL now that nothing reads.
    expect(await leads(["erase", "--yes", ref(4)], env)).toMatchObject({
      code: 0,
      err: [],
      out: expect.arrayContaining([`nothing here holds ${ref(4)} (reference)`]),
    });
    expect(storeBytes(dir).includes(SECRETS[3]!)).toBe(false);
    expect(storeBytes(dir).includes(OTHERS)).toBe(true);
  });

  it("the outbox: each line that holds them is overwritten in place, the same length, so no other line moves; the rest stay as they were", async () => {
    const { env, dir } = await seeded("sqlite");
    const outbox = join(dir, "outbox.jsonl");
    const line = (id: string, email: string, message: string) =>
      `${JSON.stringify({ id, at: "2026-11-20T10:00:00.000Z", subject: "New cost estimate request from Acme", to: "hello@kopanodigital.co.za", from_name: "Acme", reply_to: email, message })}\n`;
    const lines = [
      line(ref(7), "THANDI.nkosi@example.co.za", "Description: OUTBOX-ONE ✨\nPhone: 011 000 0000\n\nReference: 20261122-00000007"),
      line(ref(8), "ada@example.com", `Description: ${OTHERS}\n\nReference: 20261122-00000008`),
      line(ref(9), "t@work.example", "Description: OUTBOX-TWO\nPhone: +27825551234\n\nReference: 20261122-00000009"),
    ];
    writeFileSync(outbox, lines.join(""), { mode: 0o600 });
    const size = statSync(outbox).size;
    expect(rows((await leads(["find", THANDI, "0825551234"], env)).out).filter((row) => row.startsWith("outbox"))).toEqual([
      `outbox ${ref(7)} delivered`,
      `outbox ${ref(9)} delivered`,
    ]);
    expect((await leads(["erase", "--yes", THANDI, "0825551234"], env)).code).toBe(0);
    const after = readFileSync(outbox, "utf8");
    expect(statSync(outbox).size).toBe(size);
    expect(after).not.toMatch(/OUTBOX-ONE|OUTBOX-TWO|thandi|5551234/i);
    const [first, second, third] = after.split("\n").map((l) => (l === "" ? null : (JSON.parse(l) as unknown)));
    expect([first, third]).toEqual([{ erased: new Date().toISOString().slice(0, 10) }, { erased: new Date().toISOString().slice(0, 10) }]);
    expect(second).toEqual(JSON.parse(lines[1]!));
    // The file goes on as before: a line appended later is its own.
    appendFileSync(outbox, line(ref(10), "thandi.nkosi@example.co.za", "Description: later"));
    expect(rows((await leads(["find", THANDI], env)).out)).toEqual([`outbox ${ref(10)} delivered`]);
  });

  it("a line a crash tore (no closing brace, the next line on its own) is read as text: found and erased too", async () => {
    const { env, dir } = await seeded("sqlite");
    const outbox = join(dir, "outbox.jsonl");
    const message = `Phone: 082 777 8888\nDescription: TORN-TEXT ${"and more ".repeat(20)}\n\nReference: x`;
    const whole = JSON.stringify({ id: "20261122-TTTTTTT1", reply_to: "torn.person@example.com", message });
    const later = JSON.stringify({ id: "20261122-TTTTTTT2", reply_to: "ada@example.com", message: "later" });
    writeFileSync(outbox, `${whole.slice(0, Math.floor((whole.length * 2) / 3))}\n${later}\n`, { mode: 0o600 });
    for (const who of ["Torn.Person@example.com", "082-777-8888", "20261122-TTTTTTT1"])
      expect(rows((await leads(["find", who], env)).out), who).toEqual(["outbox - delivered"]);
    expect((await leads(["erase", "--yes", "torn.person@example.com"], env)).code).toBe(0);
    expect(readFileSync(outbox, "utf8")).not.toMatch(/torn|TORN-TEXT|777/i);
    expect(rows((await leads(["find", "ada@example.com"], env)).out).filter((row) => row.startsWith("outbox"))).toEqual(["outbox 20261122-TTTTTTT2 delivered"]);
  });

  it("a data folder with no store yet: the outbox alone is looked in, and no store is made", async () => {
    const { dir } = await serverStore("sqlite");
    const bare = join(dir, "bare");
    writeFileSync(join(dir, "outbox.jsonl"), `${JSON.stringify({ id: ref(7), reply_to: THANDI, message: "OUTBOX-ONLY" })}\n`);
    const env = { DATA_DIR: bare, OUTBOX_FILE: join(dir, "outbox.jsonl") };
    expect(rows((await leads(["find", THANDI], env)).out)).toEqual([`outbox ${ref(7)} delivered`]);
    expect((await leads(["erase", THANDI], env)).code).toBe(0);
    expect(existsSync(join(bare, "leads.db"))).toBe(false);
  });
});

/**
 * `npm run leads -- find` and `erase` (personal-data.ts): on real SQLite files, a real outbox file
 * and a real redis-server (Debian's) with its append-only file and snapshot on disk. A "server"
 * connection stays open on the store while the command runs, as a running server's does, so the
 * WAL is not folded away by the last connection closing: what the command leaves in the files'
 * bytes is what it did itself.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as pause } from "node:timers/promises";
import { Redis } from "ioredis";
import { describe, expect, it, type TestContext } from "vitest";
import { quietLog, recordingLog, until } from "../../tests/support/quiet-log";
import { startRedis } from "../../tests/support/redis";
import { createDraftStore } from "../drafts";
import { runCli } from "./cli";
import { asked, normalPhone } from "./personal-data";
import { createRedisQueue } from "./redis-queue";
import { leadKey } from "./schedule";
import { openStore } from "./store";
import type { Lead } from "./types";

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

/**
 * A data folder whose store a "server" connection keeps open: Thandi's pending lead (1: her email
 * in other case and spaces, her phone with dashes), held (2: her email), parked (3: stored before
 * `fields`, her phone as +27 (0)…), delivered to Zoho CRM (4: her phone without spaces), delivered
 * with its text erased by retention (5), and another person's pending lead (6).
 */
async function dataDir({ onTestFinished }: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), "pd-"));
  const server = openStore(join(dir, "leads.db"));
  onTestFinished(() => server.close());
  server.insert(calculator(` ${THANDI.toUpperCase()} `, "082-555-1234", SECRETS[0]!), { id: ref(1), key: "k1", now: HOURS_AGO, perHour: 60 });
  server.insert(contact(THANDI, SECRETS[1]!), { id: ref(2), key: "k2", now: HOURS_AGO + 1, perHour: 0 });
  server.insert(older("t.nkosi@work.example", "+27 (0)82 555 1234", SECRETS[2]!), { id: ref(3), key: "k3", now: HOURS_AGO + 2, perHour: 60 });
  server.insert(calculator("thandi@home.example", "0825551234", SECRETS[3]!), { id: ref(4), key: "k4", now: HOURS_AGO + 3, perHour: 60 });
  server.insert(calculator("thandi@old.example", "0825551234", SECRETS[4]!), { id: ref(5), key: "k5", now: HOURS_AGO + 4, perHour: 60 });
  server.insert(calculator("ada@example.com", "+27 11 000 0000", OTHERS), { id: ref(6), key: "k6", now: HOURS_AGO + 5, perHour: 60 });
  server.claimDue(() => HOURS_AGO + 10, 10, 1);
  server.park(ref(3), HOURS_AGO + 10, "zoho:INVALID_DATA");
  server.delivered(ref(4), HOURS_AGO + 10, 30 * 86_400_000, "5725767000000524157");
  server.delivered(ref(5), HOURS_AGO + 10, 0);
  server.releaseClaims();
  return { dir, server };
}

const run = async (argv: string[], env: Record<string, string>, ask?: (question: string) => Promise<boolean>) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    env,
    (line) => out.push(line),
    (line) => err.push(line),
    ask,
  );
  return { code, out, err };
};

/** The table's rows (between its header and the notes), as [where, id, status]. */
const rows = (out: string[]) =>
  out
    .slice(out.findIndex((l) => l.startsWith("where\t")) + 1)
    .filter((l) => !l.startsWith("note: ") && l.includes("\t"))
    .map((l) => l.split("\t"))
    .map(([where, id, , status]) => [where, id, status]);

/** Every byte of every file under `path`, as text (a database, its WAL, Redis's files). */
function bytesUnder(path: string): string {
  if (!existsSync(path)) return "";
  if (statSync(path).isFile()) return readFileSync(path).toString("latin1");
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"))
    .join("\n");
}
const storeBytes = (dir: string) => ["leads.db", "leads.db-wal"].map((f) => bytesUnder(join(dir, f))).join("\n");

describe("what a person is named by", () => {
  it("an email whatever its case and surrounding spaces, a South African phone in any of its spellings, a reference exactly", () => {
    expect(asked("  Thandi.Nkosi@Example.CO.ZA ")).toEqual({ kind: "email", value: "thandi.nkosi@example.co.za" });
    const spellings = [
      "+27 82 555 1234",
      "082 555 1234",
      "0825551234",
      "082-555-1234",
      "(082) 555 1234",
      "+27 (0)82 555 1234",
      "0027 82 555 1234",
      "27825551234",
      "27 (0)82 555 1234",
      "82 555 1234",
    ];
    for (const phone of spellings) expect(asked(phone), phone).toEqual({ kind: "phone", value: "0825551234" });
    expect(normalPhone("+44 20 7946 0958")).toBe("+442079460958");
    expect(normalPhone("082 555 1235")).not.toBe(normalPhone("082 555 1234"));
    expect(asked(ref(7))).toEqual({ kind: "reference", value: ref(7) });
    for (const neither of ["20261122-0000000i", "thandi", "12345", "Thandi Nkosi"]) expect(asked(neither), neither).toBeUndefined();
  });
});

describe("npm run leads -- find", () => {
  it("lists every lead that holds an email, a phone or a reference: pending, held, parked, delivered, and delivered with its text gone", async (t) => {
    const { dir } = await dataDir(t);
    const email = await run(["find", "thandi.nkosi@example.co.za"], { DATA_DIR: dir });
    expect(email.code).toBe(0);
    expect(email.out[0]).toBe("2 record(s) hold thandi.nkosi@example.co.za (email):");
    expect(rows(email.out)).toEqual([
      ["leads.db", ref(1), "pending"],
      ["leads.db", ref(2), "held"],
    ]);
    // 5 held the same phone, but its text is gone: only its reference finds it.
    expect(rows((await run(["find", "+27 82 555 1234"], { DATA_DIR: dir })).out)).toEqual([
      ["leads.db", ref(1), "pending"],
      ["leads.db", ref(3), "parked"],
      ["leads.db", ref(4), "delivered"],
    ]);
    const reference = await run(["find", ref(5)], { DATA_DIR: dir });
    expect(reference.out.find((l) => l.startsWith(`leads.db\t${ref(5)}`))).toMatch(/\tcalculator\tdelivered\t.*Z\ttext erased \(retention\)$/);
    expect((await run(["find", ref(4)], { DATA_DIR: dir })).out.find((l) => l.startsWith(`leads.db\t${ref(4)}`))).toMatch(
      /\tZoho CRM record 5725767000000524157$/,
    );
    expect(await run(["find", "nobody@example.com"], { DATA_DIR: dir })).toMatchObject({
      code: 0,
      out: expect.arrayContaining(["nothing here holds nobody@example.com (email)"]),
    });
  });

  it("--json: each record in full, the copy a person may ask for", async (t) => {
    const { dir } = await dataDir(t);
    const { out } = await run(["find", "--json", "082 555 1234"], { DATA_DIR: dir });
    const records = out.map((l) => JSON.parse(l) as { where: string; status: string; record: Lead | null });
    expect(records.map((r) => r.status)).toEqual(["pending", "parked", "delivered"]);
    expect(records[0]!.record).toMatchObject({ id: ref(1), replyTo: ` ${THANDI.toUpperCase()} `, fields: { message: SECRETS[0] } });
    expect(records[1]!.record).toMatchObject({ id: ref(3), text: expect.stringContaining("Phone: +27 (0)82 555 1234") });
    const bare = (await run(["find", "--json", ref(5)], { DATA_DIR: dir })).out.map((l) => JSON.parse(l) as unknown);
    expect(bare).toEqual([{ where: "leads.db", status: "delivered", note: "text erased (retention)", record: null }]);
  });

  it("says what it cannot reach: the form service's copy, and drafts in the server's memory", async (t) => {
    const { dir } = await dataDir(t);
    const { out } = await run(["find", THANDI], { DATA_DIR: dir, FORM_ACCESS_KEY: "k" });
    expect(out).toContain(
      "note: As set now, Web3Forms emails each delivered lead to hello@kopanodigital.co.za: delete those emails there (and wherever they were forwarded).",
    );
    expect(out.join("\n")).toMatch(
      /note: Drafts and receipts are kept in the server's memory \(REDIS_URL is unset\), which this command cannot reach: each is gone 60 minutes/,
    );
  });

  it("refuses what is neither an email, a phone nor a reference, and a flag of erase's, exit 2", async (t) => {
    const { dir } = await dataDir(t);
    expect(await run(["find", "Thandi"], { DATA_DIR: dir })).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/"Thandi" is not an email address, a phone number or a reference/)],
    });
    expect(await run(["find", "--yes", THANDI], { DATA_DIR: dir })).toMatchObject({ code: 2, err: ["leads: --yes is erase's; nothing was done"] });
    expect((await run(["find"], { DATA_DIR: dir })).code).toBe(2);
  });
});

describe("npm run leads -- erase", () => {
  it("erases every lead that holds them, leaves another person's, and a second find finds nothing; none of the text is left in the file's bytes", async (t) => {
    const { dir, server } = await dataDir(t);
    // Before: every one of them is in the files (in the WAL, which the server's connection keeps).
    for (const secret of [...SECRETS, OTHERS]) expect(storeBytes(dir).includes(secret), secret).toBe(true);
    const erased = await run(["erase", "--yes", THANDI, "082 555 1234", ref(5)], { DATA_DIR: dir });
    expect(erased.err).toEqual([]);
    expect(erased.code).toBe(0);
    expect(erased.out[0]).toMatch(
      /^erased 5 record\(s\) holding thandi\.nkosi@example\.co\.za \(email\), 0825551234 \(phone\), 20261122-00000005 \(reference\):$/,
    );
    expect(rows(erased.out).map(([, id]) => id)).toEqual([1, 2, 3, 4, 5].map(ref));
    expect(erased.out).toContain("A second look finds nothing.");
    for (const query of [THANDI, "0825551234", ref(5)]) expect((await run(["find", query], { DATA_DIR: dir })).out[0]).toMatch(/^nothing here holds/);
    expect(server.list(["pending", "held", "parked", "delivered", "handed"]).map((r) => r.id)).toEqual([ref(6)]);
    const bytes = storeBytes(dir);
    for (const secret of SECRETS) expect(bytes.includes(secret), secret).toBe(false);
    for (const trace of ["thandi", "Thandi", "555-1234", "555 1234"]) expect(bytes.includes(trace), trace).toBe(false);
    expect(bytes.includes(OTHERS)).toBe(true);
  });

  it("asks on a terminal before erasing a lead the agency has not received; without one, it needs --yes; a delivered lead it erases without asking", async (t) => {
    const { dir, server } = await dataDir(t);
    const kept = () => server.list(["pending", "held", "parked", "delivered"]).map((r) => r.id);
    const all = kept();

    const refused = await run(["erase", THANDI], { DATA_DIR: dir });
    expect(refused).toMatchObject({ code: 2, out: [] });
    expect(refused.err).toEqual([
      "leads: 2 of these leads have not reached the agency yet: erased, they never will. Run this on a terminal to be asked, or add --yes. Nothing was erased.",
    ]);
    expect(kept()).toEqual(all);

    const questions: string[] = [];
    const no = await run(["erase", THANDI], { DATA_DIR: dir }, async (q) => (questions.push(q), false));
    expect(questions).toEqual(["2 of these leads have not reached the agency yet: erased, they never will. Erase all 2? [y/N] "]);
    expect(no.code).toBe(1);
    expect(no.out.slice(0, 4)).toEqual([
      `2 record(s) hold thandi.nkosi@example.co.za (email):`,
      "where\tid\tkind\tstatus\taccepted\tnote",
      expect.stringContaining(ref(1)),
      expect.stringContaining(ref(2)),
    ]);
    expect(no.out.at(-1)).toBe("nothing was erased");
    expect(kept()).toEqual(all);

    const yes = await run(["erase", THANDI], { DATA_DIR: dir }, async () => true);
    expect(yes.code).toBe(0);
    expect(kept()).toEqual([ref(3), ref(4), ref(5), ref(6)]);

    let asked = false;
    const delivered = await run(["erase", ref(4)], { DATA_DIR: dir }, async () => (asked = true));
    expect(delivered.code).toBe(0);
    expect(asked).toBe(false);
    expect(kept()).toEqual([ref(3), ref(5), ref(6)]);
  });

  it("says so, exit 1, when a server's read keeps the WAL from being emptied: the erased text may still be in it", async (t) => {
    const { dir } = await dataDir(t);
    const reader = new DatabaseSync(join(dir, "leads.db"));
    t.onTestFinished(() => reader.close());
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM leads").get(); // a read transaction from before the erasure
    const { code, err } = await run(["erase", "--yes", ref(4)], { DATA_DIR: dir });
    expect(code).toBe(1);
    expect(err).toEqual([
      expect.stringMatching(/write-ahead log \(.*leads\.db-wal\) could not be emptied while a server read it: it may still hold erased text; run erase again$/),
    ]);
    reader.exec("COMMIT");
    expect(storeBytes(dir).includes(SECRETS[3]!), "still in the files, as it said").toBe(true);
    // Run again, it finds nothing, and empties the WAL now that nothing reads.
    expect(await run(["erase", "--yes", ref(4)], { DATA_DIR: dir })).toMatchObject({
      code: 0,
      err: [],
      out: expect.arrayContaining([`nothing here holds ${ref(4)} (reference)`]),
    });
    expect(storeBytes(dir).includes(SECRETS[3]!)).toBe(false);
    expect(storeBytes(dir).includes(OTHERS)).toBe(true);
  });

  it("a lead whose send had begun: it says so, and erases the outbox line that send writes a moment later", async (t) => {
    const { dir, server } = await dataDir(t);
    const outbox = join(dir, "outbox.jsonl");
    // The server claims the pending lead and is sending it to the outbox as the command erases it.
    expect(server.claimDue(() => Date.now(), 10, 60_000).map((r) => r.id)).toEqual([ref(1), ref(6)]);
    const erasing = run(["erase", "--yes", ref(1)], { DATA_DIR: dir, FORM_TIMEOUT_MS: "1000" });
    await until(() => server.get(ref(1)) === undefined);
    appendFileSync(
      outbox,
      `${JSON.stringify({ id: ref(1), at: new Date().toISOString(), subject: "s", to: "t", from_name: "Acme", reply_to: THANDI, message: SECRETS[0] })}\n`,
    );
    const { code, out, err } = await erasing;
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(rows(out)).toEqual([
      ["leads.db", ref(1), "pending"],
      ["outbox", ref(1), "delivered"],
    ]);
    expect(out).toContain("1 of them was being sent as it was erased: the form service may have received it.");
    expect(readFileSync(outbox, "utf8")).not.toContain(SECRETS[0]);
  });

  it("the outbox: each line that holds them is overwritten in place, the same length, so no other line moves; the rest stay as they were", async (t) => {
    const { dir } = await dataDir(t);
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
    expect(rows((await run(["find", THANDI, "0825551234"], { DATA_DIR: dir })).out).filter(([where]) => where === "outbox")).toEqual([
      ["outbox", ref(7), "delivered"],
      ["outbox", ref(9), "delivered"],
    ]);
    expect((await run(["erase", "--yes", THANDI, "0825551234"], { DATA_DIR: dir })).code).toBe(0);
    const after = readFileSync(outbox, "utf8");
    expect(statSync(outbox).size).toBe(size);
    expect(after).not.toMatch(/OUTBOX-ONE|OUTBOX-TWO|thandi|5551234/i);
    const [first, second, third] = after.split("\n").map((l) => (l === "" ? null : (JSON.parse(l) as unknown)));
    expect([first, third]).toEqual([{ erased: new Date().toISOString().slice(0, 10) }, { erased: new Date().toISOString().slice(0, 10) }]);
    expect(second).toEqual(JSON.parse(lines[1]!));
    // The file goes on as before: a line appended later is its own.
    appendFileSync(outbox, line(ref(10), "thandi.nkosi@example.co.za", "Description: later"));
    expect(rows((await run(["find", THANDI], { DATA_DIR: dir })).out)).toEqual([["outbox", ref(10), "delivered"]]);
  });

  it("a line a crash tore (no closing brace, the next line on its own) is read as text: found and erased too", async (t) => {
    const { dir } = await dataDir(t);
    const outbox = join(dir, "outbox.jsonl");
    const whole = `${JSON.stringify({ id: "20261122-TTTTTTT1", reply_to: "torn.person@example.com", message: `Phone: 082 777 8888\nDescription: TORN-TEXT ${"and more ".repeat(20)}\n\nReference: x` })}`;
    writeFileSync(
      outbox,
      `${whole.slice(0, Math.floor((whole.length * 2) / 3))}\n${JSON.stringify({ id: "20261122-TTTTTTT2", reply_to: "ada@example.com", message: "later" })}\n`,
      { mode: 0o600 },
    );
    for (const who of ["Torn.Person@example.com", "082-777-8888", "20261122-TTTTTTT1"])
      expect(
        rows((await run(["find", who], { DATA_DIR: dir })).out).map(([where]) => where),
        who,
      ).toEqual(["outbox"]);
    expect((await run(["erase", "--yes", "torn.person@example.com"], { DATA_DIR: dir })).code).toBe(0);
    expect(readFileSync(outbox, "utf8")).not.toMatch(/torn|TORN-TEXT|777/i);
    expect(rows((await run(["find", "ada@example.com"], { DATA_DIR: dir })).out).filter(([where]) => where === "outbox")).toEqual([
      ["outbox", "20261122-TTTTTTT2", "delivered"],
    ]);
  });
});

describe("with Redis", () => {
  /** Owners as the app makes them: the SHA-256 of a browser's cookie token. */
  const owner = (token: string) => createHash("sha256").update(token).digest("base64url");

  it("finds and erases her queued, parked and delivered jobs, her drafts and her receipt, and Redis rewrites its files without them", async (t) => {
    const files = await mkdtemp(join(tmpdir(), "pd-redis-"));
    // Kept on disk as compose.yaml's Redis keeps it (an append-only file), and in snapshots too.
    const redis = await startRedis(undefined, ["--appendonly", "yes", "--appendfsync", "always", "--save", "3600 1", "--dir", files]);
    t.onTestFinished(() => redis.stop());
    const dir = await mkdtemp(join(tmpdir(), "pd-"));
    const env = { DATA_DIR: dir, REDIS_URL: redis.url };
    const words = { delivered: "REDIS-DELIVERED-PLANS", parked: "REDIS-PARKED-PLANS", queued: "REDIS-QUEUED-PLANS" };
    const queue = createRedisQueue({
      redisUrl: redis.url,
      dbFile: join(dir, "leads.db"),
      log: quietLog,
      retentionMs: 30 * 86_400_000,
      perHour: 60,
      leaseMs: 500,
      pollMs: 50,
      refreshMs: 50,
      backoff: () => 600_000, // a lead that failed waits, delayed, for the rest of the test
      transport: {
        name: "fake",
        deliver: async (lead) =>
          lead.text.includes(words.parked)
            ? { ok: false, retry: false, reason: "http", status: 401 }
            : lead.text.includes(words.queued)
              ? { ok: false, retry: true, reason: "network" }
              : { ok: true },
      },
    });
    t.onTestFinished(() => queue.close());
    await queue.start();
    const mine = [
      calculator(THANDI, "082 555 1234", words.delivered),
      contact(THANDI, words.parked),
      calculator("t@work.example", "+27825551234", words.queued),
    ];
    const ids: string[] = [];
    for (const lead of mine) ids.push((await queue.accept(lead)).id);
    const other = await queue.accept(calculator("ada@example.com", "011 000 0000", OTHERS));
    const probe = new Redis(redis.url);
    t.onTestFinished(() => void probe.disconnect());
    // Delivered (both), parked and delayed: the jobs have settled.
    for (const started = Date.now(); ; await pause(50)) {
      const done = await probe.zcard("agency-site:leads:completed");
      const failed = await probe.zcard("agency-site:leads:failed");
      const delayed = await probe.zcard("agency-site:leads:delayed");
      if (done === 2 && failed === 1 && delayed === 1) break;
      if (Date.now() - started > 10_000) throw new Error(`the jobs did not settle: ${done} delivered, ${failed} parked, ${delayed} delayed`);
    }
    await queue.close();

    // Her drafts and receipt, and someone else's draft, as the app saves them.
    const { log, count } = recordingLog();
    // Past production's 500 ms a command falls back to memory: a busy test machine must not look like that.
    const drafts = createDraftStore({ redisUrl: redis.url, log, commandTimeoutMs: 5_000 });
    t.onTestFinished(() => drafts.close());
    await until(() => count("draft_store_ready") === 1);
    const [thandi, ada] = [owner("thandi"), owner("ada")];
    await drafts
      .forClient("10.0.0.1")
      .save(thandi, { fields: { "state.step": "5", "state.email": THANDI, "state.phone": "0825551234", "state.description": "DRAFT-PLANS" }, errors: null });
    await drafts
      .forClient("10.0.0.1")
      .save(thandi, { values: { name: "Thandi", email: ` ${THANDI} `, service: "seo", message: "CONTACT-DRAFT-PLANS" }, errors: {} });
    await drafts.forClient("10.0.0.1").save(thandi, { reference: ids[0], service: "seo", timeframe: "1-3", complexity: "medium", estimate: 5000 });
    await drafts
      .forClient("10.0.0.2")
      .save(ada, { fields: { "state.step": "5", "state.email": "ada@example.com", "state.description": OTHERS }, errors: null });
    // An earlier snapshot holds them too.
    await probe.bgsave();
    for (
      const started = Date.now();
      (await probe.info("persistence")).includes("rdb_bgsave_in_progress:1") || !existsSync(join(files, "dump.rdb"));
      await pause(50)
    )
      if (Date.now() - started > 10_000) throw new Error("no snapshot");
    for (const secret of [...Object.values(words), "DRAFT-PLANS", "CONTACT-DRAFT-PLANS", OTHERS]) expect(bytesUnder(files).includes(secret), secret).toBe(true);

    const found = await run(["find", THANDI, "082 555 1234"], env);
    expect(found.code).toBe(0);
    expect(rows(found.out)).toEqual(
      expect.arrayContaining([
        ["leads.db", ids[0], "delivered"],
        ["leads.db", ids[1], "handed to Redis"],
        ["leads.db", ids[2], "handed to Redis"],
        ["redis", ids[2], "queued"],
        ["redis", ids[1], "parked"],
        ["redis", ids[0], "delivered"],
        ["draft", "-", "draft"],
        ["draft", "-", "draft"],
      ]),
    );
    expect(rows(found.out)).toHaveLength(8);
    expect(rows((await run(["find", ids[0]!], env)).out)).toEqual(
      expect.arrayContaining([
        ["leads.db", ids[0], "delivered"],
        ["redis", ids[0], "delivered"],
        ["draft", ids[0], "sent"],
      ]),
    );
    expect(found.out).toContain(
      "note: Each container keeps its own lead store: run this in every container. A draft saved while Redis was unreachable stays in that server's memory, for at most 60 minutes after its visitor's last step.",
    );

    const erased = await run(["erase", "--yes", THANDI, "082 555 1234", ids[0]!], env);
    expect(erased.err).toEqual([]);
    expect(erased.code).toBe(0);
    expect(rows(erased.out)).toHaveLength(9);
    expect(erased.out).toContain("Redis rewrote its append-only file and snapshot without it.");
    for (const query of [THANDI, "0825551234", ...ids]) expect((await run(["find", query!], env)).out[0]).toMatch(/^nothing here holds/);
    // Someone else's lead and draft are as they were; the drafts' budget no longer counts hers.
    expect(rows((await run(["find", "ada@example.com"], env)).out)).toEqual(
      expect.arrayContaining([
        ["leads.db", other.id, "delivered"],
        ["redis", other.id, "delivered"],
        ["draft", "-", "draft"],
      ]),
    );
    expect(await probe.hlen("drafts:meta")).toBe(1);
    expect(await probe.zrange("drafts:usage", 0, -1)).toEqual(["10.0.0.2"]);
    expect(await probe.exists(`agency-site:form:${leadKey(mine[0]!)}`)).toBe(0);
    expect(await probe.exists(`agency-site:form:${leadKey(calculator("ada@example.com", "011 000 0000", OTHERS))}`)).toBe(1);
    // Redis's files on disk: hers are gone from them (the files it replaced are unlinked a moment
    // after the rewrite), someone else's still there.
    const hers = [...Object.values(words), "DRAFT-PLANS", "CONTACT-DRAFT-PLANS"];
    for (const started = Date.now(); hers.some((secret) => bytesUnder(files).includes(secret)) && Date.now() - started < 5_000;) await pause(50);
    for (const secret of hers) expect(bytesUnder(files).includes(secret), secret).toBe(false);
    expect(bytesUnder(files).includes(OTHERS)).toBe(true);
    expect(/REDIS-(DELIVERED|PARKED|QUEUED)-PLANS/.test(storeBytes(dir))).toBe(false);
  });
});

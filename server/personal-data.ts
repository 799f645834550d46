/**
 * `npm run leads -- find` and `erase` (POPIA, decision 0043): a person named by an email, a phone or a reference, looked
 * for wherever the site keeps what a visitor sent (leads in every status, drafts and receipts, the outbox).
 */
import { existsSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { setTimeout as pause } from "node:timers/promises";
import type { Config } from "./config";
import { causeOf, type Db } from "./db";
import { draftsIn } from "./drafts";
import { fieldsOf } from "./leads/send";
import { outcomes } from "./leads/outcomes";
import { leadStore } from "./leads/store";

type Asked = { kind: "email" | "phone" | "reference"; value: string };

/** A reference as schedule.ts's newLeadId makes it; a phone as the forms take it (and the dots some people write). */
const [REFERENCE, PHONE] = [/^\d{8}-[0-9A-HJKMNP-TV-Z]{8}$/, /^[+\d\s().-]+$/];
const normalEmail = (value: string) => value.trim().toLowerCase();

/** Digits only, `+` for an international prefix, a South African number in its national form (082…); others keep `+` and code. */
export function normalPhone(value: string): string {
  let phone = value.normalize("NFKC").replace(/[\s().-]/g, "");
  if (phone.startsWith("00")) phone = `+${phone.slice(2)}`;
  if (/^270?\d{9}$/.test(phone)) phone = `+${phone}`; // "27 82 …" and "27 (0)82 …": the country code without its +
  if (/^[1-9]\d{8}$/.test(phone)) return `0${phone}`; // "82 555 1234": a South African number without its 0
  return phone.startsWith("+27") ? `0${phone.slice(3).replace(/^0/, "")}` : phone;
}

/** What one argument names, or undefined. */
export function asked(given: string): Asked | undefined {
  const text = given.trim();
  if (/^[^\s@]+@[^\s@]+$/.test(text)) return { kind: "email", value: normalEmail(text) };
  if (REFERENCE.test(text)) return { kind: "reference", value: text };
  if (PHONE.test(text) && (text.match(/\d/g)?.length ?? 0) >= 7) return { kind: "phone", value: normalPhone(text) };
  return undefined;
}

function holdsAny(wanted: Asked[], emails: unknown[], phones: unknown[], references: unknown[]): boolean {
  return wanted.some(({ kind, value }) => {
    if (kind === "reference") return references.includes(value);
    const normal = kind === "email" ? normalEmail : normalPhone;
    return (kind === "email" ? emails : phones).some((one) => typeof one === "string" && one !== "" && normal(one) === value);
  });
}
const asText = (value: unknown) => (typeof value === "string" ? value : undefined);
/** The `Phone:` lines of a text: leads stored before `fields`, and the outbox's messages. */
const phonesIn = (text: unknown) => [...(asText(text) ?? "").matchAll(/^Phone: (.+)$/gm)].map((m) => m[1]);

/** `content`: what `find --json` prints, the person's copy. `erase` says "sending" for a lead whose send may still arrive, "changed" for an outbox line rewritten since. */
interface Found {
  where: "leads" | "outcomes" | "drafts" | "outbox";
  id: string;
  kind: string;
  status: string;
  at?: number;
  note?: string;
  content: unknown;
  erase(): Promise<"erased" | "sending" | "changed">;
}

/** Every record that holds any of `wanted`, and the places that could not be read. */
async function look(db: Db | undefined, config: Config, wanted: Asked[]) {
  const found: Found[] = [];
  const problems: string[] = [];
  const from = async (what: string, work: () => Promise<void>) =>
    work().catch((error: unknown) => void problems.push(`${what} could not be read (${causeOf(error).cause ?? (error as Error).name})`));
  const [store, drafts] = db ? [leadStore(db), draftsIn(db)] : [];
  await from("the lead store", async () => {
    for (const row of store ? await store.list(["pending", "held", "parked", "delivered"]) : []) {
      const lead = row.lead ? fieldsOf(row.lead) : undefined;
      const phone = fieldsOf(lead?.fields).phone;
      // Text erased by retention (or unreadable): the row still carries the reference.
      if (!holdsAny(wanted, [lead?.replyTo], phone === undefined ? phonesIn(lead?.text) : [phone], [row.id])) continue;
      const note = row.record ? `Zoho CRM record ${row.record}` : lead ? undefined : row.status === "delivered" ? "text erased (retention)" : "text unreadable";
      const erase = async () => ((await store!.erase(row.id)) ? "sending" : "erased");
      found.push({ where: "leads", id: row.id, kind: row.kind, status: row.status, at: row.firstAcceptedAt, note, content: row.lead, erase });
    }
  });
  // A lead's row gone (retention), its outcome still carries the reference for the funnel (decision 0053).
  await from("the outcomes", async () => {
    for (const { value } of wanted.filter((w) => w.kind === "reference" && !found.some((f) => f.id === w.value))) {
      const row = db && (await outcomes(db).of(value));
      if (!row) continue;
      const erase = async () => (await outcomes(db!).erase(value), "erased" as const);
      found.push({
        where: "outcomes",
        id: value,
        kind: String(row.kind),
        status: String(row.outcome),
        note: "kept as a count, without it",
        content: row,
        erase,
      });
    }
  });
  await from("the drafts", async () => {
    for (const { name, value, ttlMs } of drafts ? await drafts.records() : []) {
      const { fields, values, reference } = fieldsOf(value); // as app/forms/draft.server.ts keeps it
      if (!holdsAny(wanted, [fieldsOf(fields)["state.email"], fieldsOf(values).email], [fieldsOf(fields)["state.phone"]], [reference])) continue;
      const [kind, status] = asText(reference) ? ["receipt", "sent"] : [values ? "contact draft" : "calculator draft", "draft"];
      const erase = async () => (await drafts!.erase(name), "erased" as const);
      found.push({ where: "drafts", id: asText(reference) ?? "-", kind, status, note: `expires in ${Math.ceil(ttlMs / 60_000)}m`, content: value, erase });
    }
  });
  const outbox = config.delivery.outboxFile;
  await from(`the outbox ${outbox}`, async () => void (existsSync(outbox) && found.push(...inOutbox(outbox, await readFile(outbox), wanted))));
  return { found, problems };
}

/** The outbox's complete lines that hold any of `wanted`; a last one without its newline is being written. */
function inOutbox(file: string, bytes: Buffer, wanted: Asked[]): Found[] {
  const found: Found[] = [];
  for (let line = 1, start = 0, end = bytes.indexOf(0x0a); end !== -1; line++, start = end + 1, end = bytes.indexOf(0x0a, start)) {
    const [raw, offset, was] = [bytes.subarray(start, end).toString("utf8"), start, bytes.subarray(start, end)];
    let sent: Record<string, unknown>;
    let holds: boolean;
    try {
      sent = fieldsOf(JSON.parse(raw));
      holds = holdsAny(wanted, [sent.reply_to], phonesIn(sent.message), [sent.id]);
    } catch {
      // A line a crash tore (appendLine starts the next one on a line of its own): read as text.
      sent = { torn: raw.slice(0, 80) };
      const phones = [...raw.matchAll(/Phone: ([^"\\]+)/g)].map((m) => m[1]);
      holds = holdsAny(wanted, raw.match(/[^\s"<>,;:\\]+@[^\s"<>,;:\\]+/g) ?? [], phones, raw.match(/\d{8}-[0-9A-Z]+/g) ?? []);
    }
    if (!holds) continue;
    const [at, kind] = [Date.parse(String(sent.at)) || undefined, /cost estimate/i.test(String(sent.subject)) ? "calculator" : "contact"];
    const erase = async () => ((await overwrite(file, offset, was)) ? "erased" : "changed");
    found.push({ where: "outbox", id: asText(sent.id) ?? "-", kind, status: "delivered", at, note: `line ${line}`, content: sent, erase });
  }
  return found;
}

/**
 * Overwrites a line in place, `{"erased":"<date>"}` padded with spaces, so no other line moves: a server appending
 * meanwhile (O_APPEND) loses nothing. A line changed since it was read is left (false).
 */
async function overwrite(file: string, offset: number, was: Buffer) {
  const handle = await open(file, "r+");
  try {
    const now = Buffer.alloc(was.length);
    await handle.read(now, 0, now.length, offset);
    if (!now.equals(was)) return false;
    const stamp = JSON.stringify({ erased: new Date().toISOString().slice(0, 10) });
    await handle.write(Buffer.from((now.length >= stamp.length ? stamp : "").padEnd(now.length, " ")), 0, now.length, offset);
    await handle.datasync();
    return true;
  } finally {
    await handle.close();
  }
}

/** SQLite: empties the WAL, so erased text (overwritten: secure_delete) is in neither file. A server's older read holds it up: false. */
async function emptyWal(db: Db): Promise<boolean> {
  if (db.engine !== "sqlite") return true;
  const row = await db.get("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => undefined);
  return Number(row?.busy) === 0 && Number(row?.log) === 0;
}

/** The copies this command cannot reach, as the settings say now. */
function elsewhere(config: Config, db: Db | undefined): string[] {
  const { provider, inbox, endpoint, zoho } = config.delivery;
  const service = {
    outbox: "No form service is set now: delivered leads go to the outbox, which this covers.",
    "zoho-crm": `As set now, Zoho CRM keeps each delivered lead as a record of its own: delete it there too (Leads, by ${zoho?.referenceField} = the reference, or by the email or phone).`,
    web3forms: `As set now, Web3Forms emails each delivered lead to ${inbox}: delete those emails there (and wherever they were forwarded).`,
    formspree: "As set now, Formspree keeps each delivered lead among the form's submissions and emails it to the agency: delete both.",
    webhook: `As set now, the service at ${new URL(endpoint).host} (FORM_PROVIDER=webhook) receives each delivered lead: erase it there.`,
  }[provider];
  const moved = `${config.leadsDb}.moved-to-postgresql`;
  return [
    service,
    db?.engine === "postgres"
      ? "PostgreSQL is shared by every container, but each keeps its own outbox: run this in each. A deleted row's bytes stay in PostgreSQL's table files until new rows take the space VACUUM frees (VACUUM FULL leads, drafts: at once), and in its WAL, archives, replicas and backups until those are recycled or expire (docs/operations.md)."
      : "Only this data folder is looked in: another container's, or a copy or backup of one, keeps its own store and outbox.",
    ...(existsSync(moved)
      ? [`${moved} holds the leads as they were when they moved into PostgreSQL; this does not read it: delete it once it is not needed.`]
      : []),
  ];
}

const when = (at: number | undefined) => (at === undefined ? "" : `${new Date(at).toISOString().slice(0, 16).replace("T", " ")}Z`);
const table = (found: Found[]) => [
  ["where", "id", "kind", "status", "accepted", "note"].join("\t"),
  ...found.map((f) => [f.where, f.id, f.kind, f.status, when(f.at), f.note ?? ""].join("\t")),
];

/** A yes-or-no question on stderr, so stdout stays the command's answer: only "y" or "yes" is yes. */
export async function askOnTerminal(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await terminal.question(question));
  } finally {
    terminal.close();
  }
}

/** `db`: the store as cli.ts opens it (undefined: none yet); `ask`: a question on a terminal, none without one. */
type Io = { db: Db | undefined; out: (line: string) => void; err: (line: string) => void; ask?: (question: string) => Promise<boolean> };

/** `given` as cli.ts checked it (`asked`); `yes`: erase without asking about leads the agency has not received. */
export async function personalData(command: "find" | "erase", given: string[], flags: { json?: boolean; yes?: boolean }, config: Config, io: Io) {
  const { db, out, err, ask } = io;
  const wanted = given.map((one) => asked(one)!);
  const label = wanted.map(({ kind, value }) => `${value} (${kind})`).join(", ");
  const { found, problems } = await look(db, config, wanted);
  if (command === "find" && flags.json) for (const f of found) out(JSON.stringify({ where: f.where, status: f.status, note: f.note, record: f.content }));
  else if (found.length === 0) out(`nothing here holds ${label}`);
  else if (command === "find") [`${found.length} record(s) hold ${label}:`, ...table(found)].forEach((line) => out(line));
  else {
    const unsent = found.filter((f) => f.where === "leads" && f.status !== "delivered").length;
    if (unsent > 0 && !flags.yes) {
      const why = `${unsent} of these leads ${unsent === 1 ? "has" : "have"} not reached the agency yet: erased, ${unsent === 1 ? "it" : "they"} never will.`;
      if (!ask) {
        err(`leads: ${why} Run this on a terminal to be asked, or add --yes. Nothing was erased.`);
        return 2;
      }
      [`${found.length} record(s) hold ${label}:`, ...table(found)].forEach((line) => out(line));
      if (!(await ask(`${why} Erase all ${found.length}? [y/N] `))) {
        out("nothing was erased");
        return 1;
      }
    }
    const { erased, sending, left } = await eraseUntilGone(db, config, wanted, found, problems);
    [`erased ${erased.length} record(s) holding ${label}:`, ...table(erased)].forEach((line) => out(line));
    const n = sending.size;
    if (n > 0) out(`${n} of them ${n === 1 ? "was" : "were"} being sent as it was erased: the form service may have received ${n === 1 ? "it" : "them"}.`);
    if (left.length > 0) problems.push(`still found after erasing (run erase again): ${left.map((f) => `${f.where} ${f.id} ${f.status}`).join(", ")}`);
    else out("A second look finds nothing.");
  }
  // Found or not: a run that could not empty it before (a server was reading) does it now.
  if (command === "erase" && db && !(await emptyWal(db)))
    problems.push(
      `the lead store's write-ahead log (${db.where}-wal) could not be emptied while a server read it: it may still hold erased text; run erase again`,
    );
  if (!flags.json) for (const line of elsewhere(config, db)) out(`note: ${line}`);
  for (const problem of problems) err(`leads: ${problem}`);
  return problems.length > 0 ? 1 : 0;
}

/** Erases what was found, then looks again: a lead whose send had begun writes its outbox line up to FORM_TIMEOUT_MS later. */
async function eraseUntilGone(db: Db | undefined, config: Config, wanted: Asked[], found: Found[], problems: string[]) {
  const [erased, sending, started, { timeoutMs }] = [[] as Found[], new Set<string>(), Date.now(), config.delivery];
  for (let left = found; ; await pause(500)) {
    for (const f of left) {
      try {
        const how = await f.erase();
        if (how !== "changed") erased.push(f);
        if (how === "sending") sending.add(f.id);
      } catch (error) {
        const problem = `the ${f.where === "leads" ? "lead store" : f.where} could not be written (${causeOf(error).cause ?? (error as Error).name})`;
        if (!problems.includes(problem)) problems.push(problem); // once, however many rounds
      }
    }
    const again = await look(db, config, wanted);
    left = again.found;
    const settled = left.length === 0 && (sending.size === 0 || Date.now() > started + timeoutMs + 1_000);
    if (settled || Date.now() > started + timeoutMs + 5_000) return (problems.push(...again.problems), { erased, sending, left });
  }
}

/**
 * A person's data on request (POPIA: a person may ask what is held about them, and have it
 * deleted): `npm run leads -- find` and `erase` (cli.ts, decision 0043). A person is named by an
 * email address, a phone number or a lead's reference, matched exactly once case and spacing are
 * set aside. Looked for wherever this server keeps what a visitor sent: the lead store (every
 * status, delivered leads still kept too), with REDIS_URL Redis's jobs (delivered ones are kept a
 * day) and the drafts and receipts there, and the outbox file. What it cannot reach is said each
 * time: the copy the form service or CRM received, drafts in a server's own memory, other
 * containers' stores.
 */
import { existsSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { setTimeout as pause } from "node:timers/promises";
import { parseArgs } from "node:util";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { version } from "../../package.json";
import { DRAFT_LIFETIME_MINUTES } from "~/content/privacy";
import { type Config, parseConfig } from "../config";
import { draftsInRedis } from "../drafts";
import { operatorConnection } from "../redis";
import { BUSY_WAIT_MS, sqliteCause } from "./database";
import { forgetForm, QUEUE, type QueuedLead } from "./redis-shared";
import { openStore, type LeadStore } from "./store";

/** What the operator was given: an email address, a phone number or a reference, normalised. */
export interface Asked {
  kind: "email" | "phone" | "reference";
  value: string;
}

/** A lead's reference as the thanks page and the message show it (schedule.ts, newLeadId). */
const REFERENCE = /^\d{8}-[0-9A-HJKMNP-TV-Z]{8}$/;
/** What the forms accept as a phone number (app/forms/fields.ts), and the dots some people write. */
const PHONE = /^[+\d\s().-]+$/;

/** An email address as compared: its case and the spaces around it set aside. */
const normalEmail = (value: string) => value.trim().toLowerCase();

/**
 * A phone number as compared: digits only (spaces, dashes, dots and brackets go), an
 * international prefix as `+`, and a South African number in its national form, so +27 82 555
 * 1234, +27 (0)82 555 1234, 0027 82 555 1234 and 082-555-1234 are one number. Other countries'
 * numbers keep their `+` and code.
 */
export function normalPhone(value: string): string {
  let phone = value.normalize("NFKC").replace(/[\s().-]/g, "");
  if (phone.startsWith("00")) phone = `+${phone.slice(2)}`;
  if (/^270?\d{9}$/.test(phone)) phone = `+${phone}`; // "27 82 …" and "27 (0)82 …": the country code without its +
  if (/^[1-9]\d{8}$/.test(phone)) return `0${phone}`; // "82 555 1234": a South African number without its 0
  return phone.startsWith("+27") ? `0${phone.slice(3).replace(/^0/, "")}` : phone;
}

/** What one argument names, or undefined when it is none of the three. */
export function asked(given: string): Asked | undefined {
  const text = given.trim();
  if (/^[^\s@]+@[^\s@]+$/.test(text)) return { kind: "email", value: normalEmail(text) };
  if (REFERENCE.test(text)) return { kind: "reference", value: text };
  if (PHONE.test(text) && (text.match(/\d/g)?.length ?? 0) >= 7) return { kind: "phone", value: normalPhone(text) };
  return undefined;
}

/** The emails, phone numbers and references a record holds, as stored. */
interface Holds {
  emails: unknown[];
  phones: unknown[];
  references: unknown[];
}

/** The phone numbers in a lead's text: its `Phone:` line (leads stored before `fields`, and the outbox's messages). */
const phonesIn = (text: unknown) => (typeof text === "string" ? [...text.matchAll(/^Phone: (.+)$/gm)].map((m) => m[1]) : []);

const asText = (value: unknown) => (typeof value === "string" ? value : undefined);
const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});

/** A lead (the store's, or a Redis job's data). */
function ofLead(lead: Record<string, unknown>): Holds {
  const phone = fieldsOf(lead.fields).phone;
  return { emails: [lead.replyTo], phones: phone === undefined ? phonesIn(lead.text) : [phone], references: [lead.id] };
}

/** A draft or receipt (app/calculator/draft.server.ts, app/contact/draft.server.ts). */
function ofDraft(value: Record<string, unknown>): Holds {
  const fields = fieldsOf(value.fields);
  return {
    emails: [fields["state.email"], fieldsOf(value.values).email],
    phones: [fields["state.phone"]],
    references: [value.reference],
  };
}

function holdsAny({ emails, phones, references }: Holds, wanted: Asked[]): boolean {
  return wanted.some(({ kind, value }) => {
    if (kind === "reference") return references.includes(value);
    const kept = kind === "email" ? emails : phones;
    const normal = kind === "email" ? normalEmail : normalPhone;
    return kept.some((one) => {
      const text = asText(one);
      return text !== undefined && text !== "" && normal(text) === value;
    });
  });
}

/** Where a record is, and how it is erased. */
type Handle =
  { place: "store"; id: string } | { place: "job"; jobId: string } | { place: "draft"; name: string } | { place: "outbox"; offset: number; bytes: Buffer };

/** One record that holds what was asked for. */
interface Found {
  where: "leads.db" | "redis" | "draft" | "outbox";
  id: string;
  kind: string;
  status: string;
  at?: number;
  note?: string;
  /** A lead the agency has not received yet: erased, it never will; erase asks first. */
  unsent: boolean;
  /** What it holds, as kept: what `find --json` prints, the copy a person may ask for. */
  content: unknown;
  handle: Handle;
}

interface Places {
  config: Config;
  store?: LeadStore;
  redis?: Redis;
  queue?: Queue<QueuedLead>;
  drafts?: ReturnType<typeof draftsInRedis>;
}

/** BullMQ's states a job may be in, and what each means here. */
const JOB_STATES = [
  ["waiting", "queued"],
  ["prioritized", "queued"],
  ["delayed", "queued"],
  ["active", "sending"],
  ["failed", "parked"],
  ["completed", "delivered"],
] as const;

/** Every record that holds any of `wanted`; `problems`: the places that could not be read (then it is not all). */
async function look({ config, store, queue, drafts }: Places, wanted: Asked[]): Promise<{ found: Found[]; problems: string[] }> {
  const found: Found[] = [];
  const problems: string[] = [];
  if (store) {
    try {
      for (const row of store.list(["pending", "held", "parked", "handed", "delivered"])) {
        // Text erased by retention (or unreadable): the row still carries the reference.
        const holds = row.lead ? ofLead(row.lead as unknown as Record<string, unknown>) : { emails: [], phones: [], references: [row.id] };
        if (!holdsAny(holds, wanted)) continue;
        const note = row.record
          ? `Zoho CRM record ${row.record}`
          : row.lead
            ? undefined
            : row.status === "delivered"
              ? "text erased (retention)"
              : "text unreadable";
        const status = row.status === "handed" ? "handed to Redis" : row.status;
        found.push({
          where: "leads.db",
          id: row.id,
          kind: row.kind,
          status,
          at: row.firstAcceptedAt,
          note,
          unsent: row.status !== "delivered",
          content: row.lead,
          handle: { place: "store", id: row.id },
        });
      }
    } catch (error) {
      problems.push(`the lead store could not be read (${sqliteCause(error).cause ?? (error as Error).name})`);
    }
  }
  if (queue) {
    try {
      for (const [state, status] of JOB_STATES) {
        for (const job of await queue.getJobs([state])) {
          if (!job?.id || !holdsAny(ofLead(job.data as unknown as Record<string, unknown>), wanted)) continue;
          const { id, kind, acceptedAt } = job.data;
          found.push({
            where: "redis",
            id,
            kind,
            status,
            at: acceptedAt,
            unsent: state !== "completed",
            content: job.data,
            handle: { place: "job", jobId: job.id },
          });
        }
      }
    } catch (error) {
      problems.push(`Redis's queue could not be read (${(error as Error).name})`);
    }
  }
  if (drafts) {
    try {
      for (const { name, value, ttlMs } of await drafts.records()) {
        const record = fieldsOf(value);
        if (!holdsAny(ofDraft(record), wanted)) continue;
        const reference = asText(record.reference);
        const kind = reference ? "receipt" : record.values ? "contact draft" : "calculator draft";
        const note = ttlMs > 0 ? `expires in ${Math.ceil(ttlMs / 60_000)}m` : undefined;
        found.push({
          where: "draft",
          id: reference ?? "-",
          kind,
          status: reference ? "sent" : "draft",
          note,
          unsent: false,
          content: value,
          handle: { place: "draft", name },
        });
      }
    } catch (error) {
      problems.push(`the drafts in Redis could not be read (${(error as Error).name})`);
    }
  }
  try {
    found.push(...(await inOutbox(config.delivery.outboxFile, wanted)));
  } catch (error) {
    problems.push(`the outbox ${config.delivery.outboxFile} could not be read (${(error as { code?: string }).code ?? "error"})`);
  }
  return { found, problems };
}

/** The outbox's lines (transport.ts: one JSON object a delivered lead) that hold any of `wanted`, with where each lies in the file. */
async function inOutbox(file: string, wanted: Asked[]): Promise<Found[]> {
  if (!existsSync(file)) return [];
  const bytes = await readFile(file);
  const found: Found[] = [];
  let line = 0;
  // Complete lines only: a last line without its newline is being written, or was torn by a crash.
  for (let start = 0, end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
    line += 1;
    const raw = bytes.subarray(start, end).toString("utf8");
    let sent: Record<string, unknown>;
    let holds: Holds;
    try {
      sent = fieldsOf(JSON.parse(raw));
      holds = { emails: [sent.reply_to], phones: phonesIn(sent.message), references: [sent.id] };
    } catch {
      // A line a crash tore (appendLine starts the next one on a line of its own): read as text.
      sent = { torn: raw.slice(0, 80) };
      holds = {
        emails: raw.match(/[^\s"<>,;:\\]+@[^\s"<>,;:\\]+/g) ?? [],
        phones: [...raw.matchAll(/Phone: ([^"\\]+)/g)].map((m) => m[1]),
        references: raw.match(/\d{8}-[0-9A-Z]+/g) ?? [],
      };
    }
    if (!holdsAny(holds, wanted)) continue;
    const at = Date.parse(String(sent.at));
    found.push({
      where: "outbox",
      id: asText(sent.id) ?? "-",
      kind: /cost estimate/i.test(String(sent.subject)) ? "calculator" : "contact",
      status: "delivered",
      at: Number.isNaN(at) ? undefined : at,
      note: `line ${line}`,
      unsent: false,
      content: sent,
      handle: { place: "outbox", offset: start, bytes: bytes.subarray(start, end) },
    });
  }
  return found;
}

/**
 * Overwrites each line in place with a line of the same length that says it was erased, so no
 * other line moves: a server appending a delivered lead meanwhile (O_APPEND, transport.ts)
 * writes past them all, and nothing it wrote is lost, as it could be by rewriting the file.
 * A line that changed since it was read is left alone (the next look finds it again). Returns
 * the lines overwritten.
 */
async function eraseLines(file: string, lines: Extract<Handle, { place: "outbox" }>[]) {
  const handle = await open(file, "r+");
  const done = new Set<Handle>();
  try {
    const stamp = JSON.stringify({ erased: new Date().toISOString().slice(0, 10) });
    for (const line of lines) {
      const now = Buffer.alloc(line.bytes.length);
      await handle.read(now, 0, now.length, line.offset);
      if (!now.equals(line.bytes)) continue;
      await handle.write(Buffer.from((now.length >= stamp.length ? stamp : "").padEnd(now.length, " ")), 0, now.length, line.offset);
      done.add(line);
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return done;
}

/**
 * Erases what was found. `erased`: what was; `problems`: what could not be, said to the operator;
 * `sending`: the leads whose delivery had begun (a claim in the store, a job Redis has locked).
 * The store first: with Redis, a lead gone from Redis and still in its record would be queued again.
 */
async function erase({ config, store, redis, queue, drafts }: Places, found: Found[]) {
  const erased = new Set<Handle>();
  const problems: string[] = [];
  const sending = new Set<string>();
  const of = <P extends Handle["place"]>(place: P) => found.filter((f): f is Found & { handle: Extract<Handle, { place: P }> } => f.handle.place === place);
  const rows = of("store");
  if (store && rows.length > 0) {
    try {
      for (const id of store.erase([...new Set(rows.map((f) => f.handle.id))]).sending) sending.add(id);
      for (const f of rows) erased.add(f.handle);
    } catch (error) {
      problems.push(`the lead store could not be written (${sqliteCause(error).cause ?? (error as Error).name})`);
    }
  }
  for (const f of redis && queue ? of("job") : []) {
    try {
      // 0: the job is locked, being delivered right now; tried again once that ends.
      if ((await queue!.remove(f.handle.jobId)) === 1) erased.add(f.handle);
      else sending.add(f.id);
      await forgetForm(redis!, f.handle.jobId);
    } catch (error) {
      problems.push(`a job in Redis could not be removed (${(error as Error).name})`);
    }
  }
  for (const f of drafts ? of("draft") : []) {
    try {
      await drafts!.erase(f.handle.name);
      erased.add(f.handle);
    } catch (error) {
      problems.push(`a draft in Redis could not be erased (${(error as Error).name})`);
    }
  }
  const lines = of("outbox").map((f) => f.handle);
  if (lines.length > 0) {
    try {
      for (const line of await eraseLines(config.delivery.outboxFile, lines)) erased.add(line);
    } catch (error) {
      problems.push(`the outbox could not be written (${(error as { code?: string }).code ?? "error"})`);
    }
  }
  return { erased: found.filter((f) => erased.has(f.handle)), problems, sending };
}

/** A number from Redis's INFO (NaN when this Redis has no such field). */
const field = (info: string, name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? NaN);

/**
 * What Redis erased is still in its files until it rewrites them: its append-only file, and its
 * snapshot (dump.rdb). Asks for both that it keeps, waits up to 10 s for them, and says how it went.
 */
async function rewriteRedisFiles(redis: Redis): Promise<{ ok: boolean; said: string }> {
  let aof: boolean;
  let rdb: boolean;
  try {
    const setting = async (name: string) => ((await redis.config("GET", name)) as string[])[1] ?? "";
    [aof, rdb] = [(await setting("appendonly")) === "yes", (await setting("save")) !== ""];
  } catch {
    return {
      ok: false,
      said: "Redis would not say whether it keeps files (CONFIG refused, as on a managed Redis): its append-only file or snapshots may hold what was erased there until it next rewrites them",
    };
  }
  if (!aof && !rdb) return { ok: true, said: "Redis keeps no files (no append-only file, no snapshots)." };
  const files = [aof ? "append-only file" : "", rdb ? "snapshot" : ""].filter(Boolean).join(" and ");
  const before = await redis.info("persistence");
  try {
    if (aof) await redis.bgrewriteaof();
    // SCHEDULE: after a save (or a rewrite) already running, which may have begun before the erasure.
    if (rdb) await redis.call("BGSAVE", "SCHEDULE");
  } catch (error) {
    return {
      ok: false,
      said: `Redis refused to rewrite its ${files} (${(error as Error).message.split("\n")[0]}): until it next does, it holds what was erased there`,
    };
  }
  const grew = (info: string, name: string) => field(info, name) > field(before, name);
  const done = (info: string) =>
    (!aof || (grew(info, "aof_rewrites") && field(info, "aof_rewrite_in_progress") === 0 && field(info, "aof_rewrite_scheduled") === 0)) &&
    (!rdb || (grew(info, "rdb_saves") && field(info, "rdb_bgsave_in_progress") === 0));
  for (const until = Date.now() + 10_000; Date.now() < until; await pause(100))
    if (done(await redis.info("persistence"))) return { ok: true, said: `Redis rewrote its ${files} without it.` };
  return { ok: false, said: `Redis is still rewriting its ${files}: until it is done, it holds what was erased there` };
}

/** Where the lead went besides this server, as the settings say now: its copy there is not erased by this. */
function elsewhere(config: Config): string[] {
  const { provider, accessKey, inbox, endpoint, zoho } = config.delivery;
  const lines = [
    zoho
      ? `As set now, Zoho CRM keeps each delivered lead as a record of its own: delete it there too (Leads, by ${zoho.referenceField} = the reference, or by the email or phone).`
      : !accessKey
        ? "No form service is set now (FORM_ACCESS_KEY is unset): delivered leads go to the outbox, which this covers."
        : {
            web3forms: `As set now, Web3Forms emails each delivered lead to ${inbox}: delete those emails there (and wherever they were forwarded).`,
            formspree: "As set now, Formspree keeps each delivered lead among the form's submissions and emails it to the agency: delete both.",
            webhook: `As set now, the service at ${new URL(endpoint).host} (FORM_PROVIDER=webhook) receives each delivered lead: erase it there.`,
            "zoho-crm": "",
          }[provider],
  ];
  if (config.redisUrl)
    lines.push(
      `Each container keeps its own lead store: run this in every container. A draft saved while Redis was unreachable stays in that server's memory, for at most ${DRAFT_LIFETIME_MINUTES} minutes after its visitor's last step.`,
    );
  else
    lines.push(
      `Drafts and receipts are kept in the server's memory (REDIS_URL is unset), which this command cannot reach: each is gone ${DRAFT_LIFETIME_MINUTES} minutes after its visitor's last step at most, or at once when the server restarts.`,
    );
  return lines;
}

const when = (at: number | undefined) => (at === undefined ? "" : `${new Date(at).toISOString().slice(0, 16).replace("T", " ")}Z`);
const HEADER = ["where", "id", "kind", "status", "accepted", "note"].join("\t");
const row = (f: Found) => [f.where, f.id, f.kind, f.status, when(f.at), f.note ?? ""].join("\t");

/** Asks a yes-or-no question on the terminal (stderr, so stdout stays the command's answer): only "y" or "yes" is yes. */
export async function askOnTerminal(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await terminal.question(question));
  } finally {
    terminal.close();
  }
}

const OPTIONS = { json: { type: "boolean" }, yes: { type: "boolean" } } as const;
const USAGE = "usage: npm run leads -- find <email | phone | reference> ... [--json] | erase <email | phone | reference> ... [--yes]";

/**
 * `find` and `erase`, each with flags of its own: `--json` (find: each record in full, one JSON
 * object a line) and `--yes` (erase: no question before erasing leads the agency has not received).
 * `ask`: the question on a terminal; without one (a script, a pipe) erase needs --yes for those.
 */
export async function personalData(
  command: "find" | "erase",
  argv: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
  err: (line: string) => void,
  ask?: (question: string) => Promise<boolean>,
): Promise<number> {
  let flags: { json?: boolean; yes?: boolean };
  let given: string[];
  try {
    ({ values: flags, positionals: given } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true }));
  } catch (error) {
    err(`leads: ${(error as Error).message}`);
    return 2;
  }
  // Each command's flag only: a --yes that find would ignore may have been meant for erase.
  if (command === "find" ? flags.yes !== undefined : flags.json !== undefined) {
    err(`leads: ${command === "find" ? "--yes is erase's" : "--json is find's"}; nothing was done`);
    return 2;
  }
  if (given.length === 0) {
    out(USAGE);
    return 2;
  }
  const wanted: Asked[] = [];
  for (const one of given) {
    const what = asked(one);
    if (!what) {
      err(`leads: ${JSON.stringify(one)} is not an email address, a phone number or a reference (such as 20261122-7F3KQ9ZA)`);
      return 2;
    }
    wanted.push(what);
  }
  const config = parseConfig(env, version);
  const places: Places = { config };
  if (existsSync(config.leadsDb)) {
    try {
      places.store = openStore(config.leadsDb, undefined, { timeout: BUSY_WAIT_MS });
    } catch (error) {
      err(`leads: ${(error as Error).message}; nothing was ${command === "find" ? "read" : "erased"}`);
      return 1;
    }
  }
  if (config.redisUrl) {
    places.redis = operatorConnection(config.redisUrl);
    places.queue = new Queue<QueuedLead>(QUEUE.name, { connection: places.redis, prefix: QUEUE.prefix });
    places.drafts = draftsInRedis(places.redis);
  }
  const label = wanted.map(({ kind, value }) => `${value} (${kind})`).join(", ");
  try {
    return command === "find"
      ? await find(places, wanted, label, flags.json === true, out, err)
      : await eraseAll(places, wanted, label, flags.yes === true, out, err, ask);
  } finally {
    await places.queue?.close();
    places.redis?.disconnect();
    places.store?.close();
  }
}

async function find(places: Places, wanted: Asked[], label: string, json: boolean, out: (line: string) => void, err: (line: string) => void) {
  const { found, problems } = await look(places, wanted);
  for (const problem of problems) err(`leads: ${problem}`);
  if (json) {
    for (const f of found) out(JSON.stringify({ where: f.where, status: f.status, note: f.note, record: f.content }));
    return problems.length > 0 ? 1 : 0;
  }
  out(found.length === 0 ? `nothing here holds ${label}` : `${found.length} record(s) hold ${label}:`);
  if (found.length > 0) [HEADER, ...found.map(row)].forEach((line) => out(line));
  for (const line of elsewhere(places.config)) out(`note: ${line}`);
  return problems.length > 0 ? 1 : 0;
}

async function eraseAll(
  places: Places,
  wanted: Asked[],
  label: string,
  yes: boolean,
  out: (line: string) => void,
  err: (line: string) => void,
  ask?: (question: string) => Promise<boolean>,
) {
  const first = await look(places, wanted);
  const problems = [...first.problems];
  if (first.found.length === 0) {
    out(`nothing here holds ${label}`);
  } else {
    const unsent = new Set(first.found.filter((f) => f.unsent).map((f) => f.id)).size;
    if (unsent > 0 && !yes) {
      const why = `${unsent} of these leads ${unsent === 1 ? "has" : "have"} not reached the agency yet: erased, ${unsent === 1 ? "it" : "they"} never will.`;
      if (!ask) {
        err(`leads: ${why} Run this on a terminal to be asked, or add --yes. Nothing was erased.`);
        return 2;
      }
      [`${first.found.length} record(s) hold ${label}:`, HEADER, ...first.found.map(row)].forEach((line) => out(line));
      if (!(await ask(`${why} Erase all ${first.found.length}? [y/N] `))) {
        out("nothing was erased");
        return 1;
      }
    }
    const { erased, notes } = await eraseUntilGone(places, wanted, first.found, problems);
    out(`erased ${erased.length} record(s) holding ${label}:`);
    [HEADER, ...erased.map(row)].forEach((line) => out(line));
    for (const line of notes) out(line);
  }
  // Always, found or not: a run that could not empty it before (a server was reading) does it now.
  if (places.store && !(await emptyWal(places.store)))
    problems.push(
      `the lead store's write-ahead log (${places.config.leadsDb}-wal) could not be emptied while a server read it: it may still hold erased text; run erase again`,
    );
  for (const line of elsewhere(places.config)) out(`note: ${line}`);
  for (const problem of problems) err(`leads: ${problem}`);
  return problems.length > 0 ? 1 : 0;
}

/** Empties the store's WAL, so what was erased is in neither file; a server reading meanwhile holds it up, tried again for a while. */
async function emptyWal(store: LeadStore): Promise<boolean> {
  const until = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    if (store.emptyWal()) return true;
    if (Date.now() >= until) return false;
    await pause(50);
  }
}

/**
 * Erases, then looks again until nothing holds it: a lead a server handed to Redis at that very
 * moment, a job locked while it was being delivered (it is erased once delivered), a lead whose
 * delivery had begun, whose outbox line may come a moment later. Up to the longest a send takes
 * (FORM_TIMEOUT_MS) and a little more; what is still found then is said.
 */
async function eraseUntilGone(places: Places, wanted: Asked[], found: Found[], problems: string[]) {
  const { timeoutMs } = places.config.delivery;
  const until = Date.now() + timeoutMs + 5_000;
  const erased: Found[] = [];
  const sending = new Set<string>();
  let left = found;
  let settleUntil = 0;
  for (;;) {
    const done = await erase(places, left);
    erased.push(...done.erased);
    for (const problem of done.problems) if (!problems.includes(problem)) problems.push(problem);
    // A send that had begun may still write (an outbox line, a job completing): looked for until it has ended.
    if ([...done.sending].some((id) => !sending.has(id))) settleUntil = Date.now() + timeoutMs + 1_000;
    for (const id of done.sending) sending.add(id);
    const again = await look(places, wanted);
    left = again.found;
    if ((left.length === 0 && Date.now() >= settleUntil) || Date.now() >= until) {
      problems.push(...again.problems);
      break;
    }
    await pause(500);
  }
  const notes: string[] = [];
  if (sending.size > 0)
    notes.push(
      `${sending.size} of them ${sending.size === 1 ? "was" : "were"} being sent as it was erased: the form service may have received ${sending.size === 1 ? "it" : "them"}.`,
    );
  if (left.length > 0) problems.push(`still found after erasing (run erase again): ${left.map((f) => `${f.where} ${f.id} ${f.status}`).join(", ")}`);
  else notes.push("A second look finds nothing.");
  if (places.redis && erased.some((f) => f.where === "redis" || f.where === "draft")) {
    const { ok, said } = await rewriteRedisFiles(places.redis);
    (ok ? notes : problems).push(said);
  }
  // Each record once, as first found (a later round finds a lead again only where it came back).
  const key = (f: Found) => `${f.where} ${f.id} ${f.kind} ${f.note ?? ""}`;
  return { erased: erased.filter((f, i) => erased.findIndex((g) => key(g) === key(f)) === i), notes };
}

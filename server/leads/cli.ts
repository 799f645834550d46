/**
 * `npm run -s leads -- <command>` (USAGE; docs/operations.md says what each does), with the servers running or not. On
 * SQLite a server's lock is waited for by SQLite itself, up to 3 s a statement: a command has nothing else to do (decision 0039).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { bareHost, normalName, refusal } from "~/funnel/source";
import { version } from "../../package.json";
import { type Config, parseConfig } from "../config";
import { BUSY_WAIT_MS, causeOf, openDb, type Db } from "../db";
import { lastDays, openFunnel } from "../funnel";
import { KEY_KEPT_MS, linkKey, LINK_PATH, signLink } from "../funnel-link";
import { funnelCsv, funnelText, sourceWorth } from "../funnel-report";
import { askOnTerminal, asked, personalData } from "../personal-data";
import { backup, readBackup } from "./backup";
import { readCrmOutcomes } from "./crm-outcomes";
import { type Decided, outcomes } from "./outcomes";
import { copyLeads, leadStore, NotHeld, prepareStore, RESTORED, VERSION, type LeadRow } from "./store";
import { addNames, readLists, removeName, type List } from "../source-lists";

const USAGE =
  "usage: npm run -s leads -- list | export | retry [id ...] | release [id ...] | discard <id | address code> ... | status | backup <file> | restore <file> | restore --in-place | funnel [--json | --csv] [--days N] | funnel-link [--days N] | funnel-link --revoke-all | find <email | phone | reference> [--json] | erase <email | phone | reference> [--yes] | campaigns add|remove|list [name] | sites add|remove|list [host] | won <reference> [--value <rand>] | lost <reference> | outcomes";
const LIST_COMMANDS = ["campaigns", "sites"];
/** What became of the leads: their own block below. */
const OUTCOME_COMMANDS = ["won", "lost", "outcomes"];
const COMMANDS = [
  "list",
  "export",
  "retry",
  "release",
  "discard",
  "status",
  "backup",
  "restore",
  "funnel",
  "funnel-link",
  "find",
  "erase",
  ...LIST_COMMANDS,
  ...OUTCOME_COMMANDS,
];
const flag = { type: "boolean" } as const;
const OPTIONS = {
  help: flag,
  json: flag,
  yes: flag,
  days: { type: "string" },
  "in-place": flag,
  csv: flag,
  "revoke-all": flag,
  value: { type: "string" },
} as const;
type Flags = { json?: boolean; yes?: boolean; days?: string; "in-place"?: boolean; csv?: boolean; "revoke-all"?: boolean; value?: string };
type Out = (line: string) => unknown;
type Ask = (question: string) => Promise<boolean>;

function age(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  return minutes < 60 ? `${minutes}m` : minutes < 48 * 60 ? `${Math.floor(minutes / 60)}h` : `${Math.floor(minutes / 1440)}d`;
}
/** Why a lead waits: a parked one's reason with the refusing status ("http 401": the key), a held one's rule. */
const why = (row: LeadRow) => [row.parkedReason, (row.parkedStatus ?? 0) >= 400 ? row.parkedStatus : null].filter((part) => part !== null).join(" ");
/** A lead in full, as export and discard write it: personal data. */
const exported = (row: LeadRow) => JSON.stringify({ ...row.lead, status: row.status, reason: row.parkedReason ?? undefined, address: row.group ?? undefined });
/** Arrival to the second, so a burst of one-shot addresses shows as many leads in a few seconds. */
const listed = (row: LeadRow, reason: string) => {
  const arrived = new Date(row.firstAcceptedAt).toISOString().slice(0, 19) + "Z";
  return [row.id, row.kind, row.status, age(Date.now() - row.firstAcceptedAt), arrived, reason, row.group ?? ""].join("\t");
};

/** The store as the server has it; a command never makes an empty SQLite file. */
function storeOf(config: Config, err: Out): Db | undefined {
  if (!config.databaseUrl && !existsSync(config.leadsDb)) return void err(`leads: no lead store at ${config.leadsDb} yet (DATA_DIR=${config.dataDir})`);
  return openDb({ databaseUrl: config.databaseUrl, file: config.leadsDb }, { timeout: BUSY_WAIT_MS, version: VERSION });
}

/** Why the arguments are wrong, or undefined: a flag another command takes would be swallowed; a discard of no ids would take every held lead. */
function misuse(command: string, ids: string[], flags: Flags): string | undefined {
  if (LIST_COMMANDS.includes(command)) return listMisuse(command, ids, flags);
  if (OUTCOME_COMMANDS.includes(command) || flags.value !== undefined) return outcomeMisuse(command, ids, flags);
  const marketing = forMarketingMisuse(command, ids, flags);
  if (marketing !== null) return marketing;
  if (command === "find" || command === "erase") {
    // A --yes that find would ignore may have been meant for erase.
    if (command === "find" ? flags.yes !== undefined : flags.json !== undefined)
      return `${command === "find" ? "--yes is erase's" : "--json is find's"}; nothing was done`;
    if (flags.days !== undefined || flags["in-place"]) return `--days and --in-place are not ${command}'s`;
    const bad = ids.find((one) => !asked(one));
    if (bad !== undefined) return `${JSON.stringify(bad)} is not an email address, a phone number or a reference (such as 20261122-7F3KQ9ZA)`;
    return ids.length === 0 ? `${command} takes email addresses, phone numbers or references` : undefined;
  }
  if (flags.yes !== undefined) return `--yes is erase's, not ${command}'s`;
  if (command !== "funnel" && (flags.json !== undefined || flags.days !== undefined)) return `--json and --days are the funnel's; ${command} takes ids only`;
  if (flags["in-place"] && command !== "restore") return `--in-place is restore's, not ${command}'s`;
  if ((command === "backup" || command === "restore") && ids.length !== (flags["in-place"] ? 0 : 1))
    return `${command} takes one file${command === "restore" ? ", or --in-place alone" : ""}`;
  if (command === "discard" && ids.length === 0)
    return "discard takes the ids or address codes of held or restored leads (npm run -s leads -- list shows them)";
  if (command === "funnel" && ids.length > 0) return `Unexpected argument '${ids[0]}'. funnel takes no ids`;
  const days = Number(flags.days ?? 7);
  if (command === "funnel" && !(Number.isInteger(days) && days >= 1 && days <= 400)) return "--days must be a whole number from 1 to 400";
  return undefined;
}

/**
 * `out` is stdout (its promise settles once the line is written: discard waits for that), `err` stderr, `ask` a
 * question on the operator's terminal (none without one). Exit code 1: something could not be read or done; 2: misuse.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined>, out: Out, err: Out = out, ask?: Ask): Promise<number> {
  // Every name after discard is a name: an address code may start with "-" (base64url).
  const args = argv[0] === "discard" ? ["discard", "--", ...argv.slice(argv[1] === "--" ? 2 : 1)] : argv;
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    err(`leads: ${(error as Error).message}`);
    return 2;
  }
  const [flags, [command, ...ids]] = [parsed.values, parsed.positionals];
  if (flags.help || !command || !COMMANDS.includes(command)) {
    out(USAGE);
    return flags.help ? 0 : 2;
  }
  const wrong = misuse(command, ids, flags);
  if (wrong) {
    err(`leads: ${wrong}`);
    return 2;
  }
  const config = parseConfig(env, version);
  if (command === "funnel") return funnel(flags, config, out, err);
  if (LIST_COMMANDS.includes(command)) return sourceList(command as List, ids, config, out, err);
  if (command === "funnel-link") return funnelLink(flags, config, out, err);
  if (OUTCOME_COMMANDS.includes(command)) return outcome(command, ids[0]?.trim(), flags, config, out, err);
  // A file named as the operator's shell sees it (npm runs the command in the package's folder).
  if (command === "backup" || command === "restore") return copies(command, ids[0] && resolve(env.INIT_CWD ?? process.cwd(), ids[0]), config, out, err);
  let db: Db | undefined;
  try {
    // With no store yet, find and erase look in the outbox alone.
    db = storeOf(config, command === "find" || command === "erase" ? () => undefined : err);
    if (command === "find" || command === "erase") return await personalData(command, ids, flags, config, { db, out, err, ask });
    if (!db) return ["status", "list", "export"].includes(command) ? 0 : 1;
    const store = leadStore(db);
    const rows = await store.list(["pending", "held", "parked"]);
    const unreadable = rows.filter((row) => row.lead === null);
    for (const row of unreadable) err(`leads: the text of lead ${row.id} could not be read`);
    if (command === "list") {
      out(["id", "kind", "status", "age", "arrived", "reason", "address"].join("\t"));
      for (const row of rows) out(listed(row, why(row)));
      for (const row of await store.inCrm()) out(listed(row, `record ${row.record}`)); // delivered to Zoho CRM and still kept here
    } else if (command === "export") {
      for (const row of rows) if (row.lead) out(exported(row));
    } else if (command === "discard") {
      // Each written out before it goes: `discard … > flood.jsonl` keeps what it removed.
      const { read, gone } = await store.discard(ids, (row) => out(exported(row)));
      err(`discarded ${gone} lead(s)${read > gone ? `; ${read - gone} released meanwhile went on, not discarded` : ""}`);
    } else if (command === "status") {
      const { delivered: deliveredKept, ...counts } = await store.stats(Date.now());
      const { retentionDays, leadsPerHour } = config;
      out(JSON.stringify({ store: db.engine, database: db.where, ...counts, deliveredKept, retentionDays, leadsPerHour }, null, 2));
    } else {
      const moved = await store.requeue(command === "retry" ? "parked" : "held", ids, Date.now());
      out(`${command === "retry" ? "re-queued" : "released"} ${moved} lead(s); the server sends them within a few seconds (or when it next starts)`);
      const restored = command === "retry" && ids.length === 0 ? rows.filter((row) => row.status === "parked" && row.parkedReason === RESTORED) : [];
      if (restored.length > 0) out(`${restored.length} lead(s) parked as "restored" stay parked: name those the receiver never got to send them`);
    }
    return unreadable.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof NotHeld) {
      err(`leads: ${error.message}; nothing was discarded (npm run -s leads -- list shows the held and restored leads)`);
      return 1;
    }
    const written = ["retry", "release", "discard", "erase"].includes(command) ? "; nothing was changed" : "";
    err(`leads: the lead store could not be used (${causeOf(error).cause ?? (error as Error).message})${written}`);
    return 1;
  } finally {
    await db?.close();
  }
}

/** `backup FILE`, `restore FILE` (into the store, made if missing: a lost volume), `restore --in-place` (decision 0048). */
async function copies(command: "backup" | "restore", file: string | undefined, config: Config, out: Out, err: Out) {
  let db: Db | undefined;
  try {
    if (command === "backup") {
      db = storeOf(config, err);
      if (!db) return 1;
      const copied = await backup(db, file!, Date.now());
      out(`backed up ${copied} lead(s) to ${file}; those not yet delivered are parked there as "restored", so that a restore never sends one again unasked`);
      return 0;
    }
    const rows = file ? readBackup(file) : []; // before the store is touched: a file that is no backup leaves nothing behind
    db = openDb({ databaseUrl: config.databaseUrl, file: config.leadsDb }, { timeout: BUSY_WAIT_MS, version: VERSION });
    if (!file) await leadStore(db).holdRestored(Date.now());
    else {
      const added = await copyLeads(rows, db, Date.now()); // the store's own rows win
      out(`restored ${added} of ${rows.length} lead(s) from ${file} (${rows.length - added} the store had already, kept as it has them)`);
    }
    const waiting = await db.get("SELECT count(*) AS n FROM leads WHERE status = 'parked' AND parked_reason = ?", [RESTORED]);
    out(
      `${Number(waiting?.n)} lead(s) not known to be delivered are parked as "restored": npm run -s leads -- list names them; check the receiver for each reference, then send those it never got: npm run -s leads -- retry <id ...>`,
    );
    return 0;
  } catch (error) {
    const kept = command === "backup" ? "no backup was written" : "what it added is kept, and running it again adds the rest";
    err(`leads: ${command} failed (${causeOf(error).cause ?? (error as Error).message}); ${kept}`);
    return 1;
  } finally {
    await db?.close();
  }
}

const ONE = { campaigns: "campaign name", sites: "host" };

function listMisuse(command: string, args: string[], flags: Flags): string | undefined {
  const [action, ...names] = args;
  if (Object.values(flags).some((value) => value !== undefined)) return `${command} takes no options`;
  if (action === "list") return names.length === 0 ? undefined : `${command} list takes no ${ONE[command as List]}`;
  if (action !== "add" && action !== "remove") return `${command} takes add, remove or list`;
  return names.length === 1 ? undefined : `${command} ${action} takes one ${ONE[command as List]}`;
}

/**
 * `campaigns|sites add|remove|list` (decision 0052): the lists every server reads again within REFRESH_MS. A name the
 * source rule would not keep is refused (exit 2, nothing written); adding one listed, or removing one not, says so (exit 0).
 */
async function sourceList(list: List, [action, typed = ""]: string[], config: Config, out: Out, err: Out) {
  const name = list === "campaigns" ? normalName(typed) : bareHost(typed);
  const why = action === "add" ? refusal(list, typed) : undefined;
  if (why) {
    err(`leads: ${JSON.stringify(typed)} is refused as a ${ONE[list]}: ${why}; nothing was written`);
    return 2;
  }
  const db = storeOf(config, err);
  if (!db) return action === "list" ? 0 : 1;
  try {
    await prepareStore(db); // a store an older release made has no lists yet
    const fromSettings = list === "campaigns" ? config.sources.names.has(name) : config.sources.sites.includes(name);
    const every = "every server counts by the change within a minute";
    if (action === "list") (await readLists(db))[list].forEach((listed) => out(listed));
    else if (action === "add")
      out((await addNames(db, list, [name])).length ? `${name} added to the ${list}: ${every}` : `${name} is on the ${list} already: nothing was changed`);
    else if (!(await removeName(db, list, name))) out(`${name} is not on the ${list}: nothing was changed`);
    else {
      out(`${name} removed from the ${list}: ${every}`);
      if (fromSettings)
        out(`${list === "campaigns" ? "CAMPAIGNS" : "REFERRER_SITES"} names it too: it comes back at the next start unless it is taken out there as well`);
    }
    return 0;
  } catch (error) {
    err(`leads: the lead store could not be used (${causeOf(error).cause ?? (error as Error).message})${action === "list" ? "" : "; nothing was changed"}`);
    return 1;
  } finally {
    await db.close();
  }
}

/** `funnel`: the counters of the last days, from PostgreSQL or the data folder's funnel.db, with the leads' outcomes from the lead store, if any. */
async function funnel(flags: Flags, config: Config, out: Out, err: Out) {
  const db = openDb({ databaseUrl: config.databaseUrl, file: config.funnelDb }, { synchronous: "NORMAL", timeout: BUSY_WAIT_MS });
  const leads = config.databaseUrl ? db : storeOf(config, () => undefined);
  const store = openFunnel({ db, log: { warn: () => undefined }, settings: config.sources, outcomes: leads && outcomesOf(leads) });
  try {
    const days = await store.read(lastDays(Number(flags.days ?? 7)));
    if (flags.json) out(JSON.stringify({ days, sources: sourceWorth(days) }, null, 2));
    else if (flags.csv) funnelCsv(days).forEach((line) => out(line));
    else funnelText(days).forEach((line) => out(line));
    return 0;
  } catch (error) {
    err(`leads: the funnel could not be read (${(error as Error).name})`);
    return 1;
  } finally {
    await store.close();
    await db.close();
    if (leads !== db) await leads?.close();
  }
}

// ---------------------------------------------------------------------------------------------
// What became of the leads (decision 0053): `won`, `lost`, and `outcomes` (Zoho CRM's, read now).

/** The lead store's outcomes as the funnel reads them: the table made first if this release's server has not yet started on it. */
const outcomesOf = (db: Db) => async (from: string, to: string) => (await prepareStore(db), outcomes(db).read(from, to));

/**
 * Whole rand as people write it: "85000", "85 000", "85,000", "R 85 000" (a space or comma between each three digits, "R"
 * before). Cents, other currencies, "85k" and a European "85.000" are refused, with the reason: a value misread would stay.
 */
export function randOf(given: string): number | string {
  const text = given.trim().replace(/[\u00a0\u202f]/g, " ");
  const figure = /^(?:R\s?)?(\d{1,3}(?:([ ,])\d{3})?(?:\2\d{3})*|\d+)$/i.exec(text)?.[1];
  if (figure === undefined)
    return /[.,]\d{1,2}$/.test(text)
      ? "is whole rand: leave the cents out"
      : 'must be whole rand, as 85000, 85 000, 85,000 or R 85 000 (digits, grouped in threes by spaces or commas, "R" before)';
  const rand = Number(figure.replace(/[ ,]/g, ""));
  return rand >= 1 && rand <= 10_000_000_000 ? rand : "must be from R 1 to R 10 000 000 000 (leave --value out when it is not known)";
}

function outcomeMisuse(command: string, ids: string[], flags: Flags): string | undefined {
  if (command !== "won" && flags.value !== undefined) return `--value is won's, not ${command}'s`;
  const others = Object.keys(flags).filter((name) => name !== "value");
  if (others.length > 0) return `--${others[0]} is not ${command}'s`;
  if (command === "outcomes") return ids.length > 0 ? "outcomes takes no references: it reads every lead Zoho CRM holds" : undefined;
  if (ids.length !== 1 || asked(ids[0]!)?.kind !== "reference") return `${command} takes one reference, the lead's (such as 20261122-7F3KQ9ZA)`;
  const rand = flags.value === undefined ? 1 : randOf(flags.value);
  return typeof rand === "string" ? `--value ${rand}` : undefined;
}

/** `won <reference> [--value R]` and `lost <reference>`, run again to correct; `outcomes` reads Zoho CRM's now. Exit 1: refused or failed. */
async function outcome(command: string, reference: string | undefined, flags: Flags, config: Config, out: Out, err: Out) {
  const { provider, zoho, timeoutMs } = config.delivery;
  if (command !== "outcomes" && zoho) {
    err(
      "leads: with FORM_PROVIDER=zoho-crm, outcomes come from Zoho CRM, one source of truth: convert the lead there, or give it a Lead_Status in ZOHO_WON_STATUSES (npm run -s leads -- outcomes reads them now)",
    );
    return 1;
  }
  if (command === "outcomes" && !zoho) {
    err(`leads: outcomes reads Zoho CRM's; with FORM_PROVIDER=${provider}, record them with won and lost`);
    return 1;
  }
  const db = storeOf(config, err);
  if (!db) return 1;
  try {
    await prepareStore(db);
    if (zoho) {
      const read = await readCrmOutcomes(db, zoho, timeoutMs);
      if ("busy" in read) err("leads: another process is reading Zoho CRM's outcomes now (its read shows in a moment); nothing was read");
      else if ("failed" in read) err(`leads: Zoho CRM could not be read (${read.failed}${read.status ? ` ${read.status}` : ""}); nothing was marked`);
      else out(`asked Zoho CRM about ${read.asked} lead(s) not yet won: ${read.won} now won`);
      return "asked" in read ? 0 : 1;
    }
    const value = flags.value === undefined ? null : (randOf(flags.value) as number);
    if ((await outcomes(db).mark(reference!, command as Decided, value, Date.now())) === 0) {
      err(`leads: ${reference} is not known, or was erased; nothing was marked`);
      return 1;
    }
    out(`${reference}: ${command}${value === null ? "" : `, R ${value.toLocaleString("en-ZA")}`}; the funnel counts it on the day the lead was sent`);
    return 0;
  } catch (error) {
    err(`leads: the lead store could not be used (${causeOf(error).cause ?? (error as Error).message}); nothing was changed`);
    return 1;
  } finally {
    await db.close();
  }
}

// The figures for marketing: `funnel --csv` and `funnel-link`.
const LINK_DAYS = { default: 7, most: 90 };

/** Undefined: these flags are right; null: not these commands' or flags' to judge. */
function forMarketingMisuse(command: string, ids: string[], flags: Flags): string | undefined | null {
  if (command === "funnel-link") {
    if (ids.length > 0) return `Unexpected argument '${ids[0]}'. funnel-link takes no ids`;
    if (flags.json || flags.csv || flags.yes || flags["in-place"]) return "funnel-link takes --days N or --revoke-all alone";
    if (flags["revoke-all"] && flags.days !== undefined) return "--revoke-all gives no link: it takes no --days";
    const days = Number(flags.days ?? LINK_DAYS.default);
    return Number.isInteger(days) && days >= 1 && days <= LINK_DAYS.most ? undefined : `--days must be a whole number from 1 to ${LINK_DAYS.most}`;
  }
  if (flags["revoke-all"]) return `--revoke-all is funnel-link's, not ${command}'s`;
  if (flags.csv && command !== "funnel") return `--csv is the funnel's, not ${command}'s`;
  if (flags.csv && flags.json) return "--csv or --json, not both";
  return null;
}

/** `funnel-link`: an address on the public port that shows the funnel's page until it expires; `--revoke-all`, a new key. */
async function funnelLink(flags: Flags, config: Config, out: Out, err: Out) {
  const db = storeOf(config, err);
  if (!db) return 1;
  try {
    await prepareStore(db);
    const key = await linkKey(db, flags["revoke-all"]);
    if (flags["revoke-all"]) {
      out(`every funnel link given so far no longer opens (each server within ${KEY_KEPT_MS / 1000} s); npm run -s leads -- funnel-link gives a new one`);
      return 0;
    }
    const days = Number(flags.days ?? LINK_DAYS.default);
    const expires = Date.now() + days * 86_400_000;
    const origin = config.siteOrigins[0] ?? `http://localhost:${config.port}`;
    out(`${origin}${LINK_PATH}${signLink(key, expires)}`);
    err(
      `anyone holding this address sees the funnel until ${new Date(expires).toISOString().slice(0, 16)}Z; npm run -s leads -- funnel-link --revoke-all ends every link`,
    );
    return 0;
  } catch (error) {
    err(
      `leads: the lead store could not be used (${causeOf(error).cause ?? (error as Error).message}); no link was ${flags["revoke-all"] ? "revoked" : "made"}`,
    );
    return 1;
  } finally {
    await db.close();
  }
}

if (process.argv[1]?.endsWith("leads.js")) {
  // A line's promise settles once written (a full disk under `> flood.jsonl` fails it); a reader gone (`list | head`) ends only the output.
  process.stdout.on("error", () => undefined);
  let last: Promise<void> = Promise.resolve();
  const written = (line: string) => {
    const done = new Promise<void>((resolve, reject) => process.stdout.write(`${line}\n`, (error) => (error ? reject(error) : resolve())));
    done.catch(() => undefined); // waited for by discard alone
    return (last = done);
  };
  // A pipe takes a large report in parts: exit once its last line is out (lines are written in order), not with it cut.
  runCli(process.argv.slice(2), process.env, written, (line) => console.error(line), process.stdin.isTTY ? askOnTerminal : undefined).then(
    (code) =>
      last.then(
        () => process.exit(code),
        () => process.exit(code),
      ),
    (error: unknown) => {
      console.error(`leads: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

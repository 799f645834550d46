/**
 * `npm run leads -- <command>`: what an operator needs to see and move the lead store, with the
 * server running or not (DATA_DIR and REDIS_URL as the server has them). It reads and changes the
 * SQLite database directly; SQLite's locks keep it safe beside a running server, which picks up a
 * change within a few seconds. A lock a server holds is waited for up to 3 s a statement, by SQLite
 * itself: a command has nothing else to do meanwhile, unlike the server (decision 0039).
 *
 *   list             pending, held and parked leads: id, kind, status, age, why (no personal data);
 *                    and leads delivered to Zoho CRM still kept here, with the CRM record's id;
 *                    with Redis, a lead this store handed over counts as pending until Redis says
 *                    it was delivered, so what Redis lost still shows
 *   export           the same leads in full, one JSON object per line (personal data)
 *   retry [id …]     re-queue parked leads (all, or those named), e.g. after fixing a wrong key
 *   release [id …]   send on leads held over the hourly ceiling (all, or those named)
 *   status           counts and ages, as JSON
 *   funnel [--json] [--days N]
 *                    the calculator's funnel for the last N days (7): a table a day and a bar per
 *                    step, then what each source brought, day by day; --json as
 *                    { days: [...], sources: [...] } (server/funnel.ts), oldest first
 *   find <email | phone | reference> ... [--json]
 *   erase <email | phone | reference> ... [--yes]
 *                    a person's data on request: every lead, draft, receipt and outbox line that
 *                    holds it; erase asks before erasing a lead not yet delivered (personal-data.ts)
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { Queue, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { version } from "../../package.json";
import { type Config, parseConfig } from "../config";
import { operatorConnection } from "../redis";
import { lastDays, NAMED_SOURCES, namedSources, openFunnel, percent, type SourceWorth, sourceWorth, STEP_NAMES, stepFigures, type Worth } from "../funnel";
import { QUEUE, whereInRedis, type QueuedLead } from "./redis-shared";
import { BUSY_WAIT_MS, sqliteCause } from "./database";
import { askOnTerminal, personalData } from "./personal-data";
import { openStore, type LeadRow, type LeadStore } from "./store";

interface Row {
  id: string;
  kind: string;
  acceptedAt: number;
  status: "pending" | "held" | "parked";
  reason?: string;
  lead: QueuedLead | null;
  /** The dedupe key: the job's id in Redis. */
  key: string;
}

const USAGE =
  "usage: npm run leads -- list | export | retry [id ...] | release [id ...] | status | funnel [--json] [--days N] | find <email | phone | reference> [--json] | erase <email | phone | reference> [--yes]";
const COMMANDS = ["list", "export", "retry", "release", "status", "funnel"];
/** Every command's flags; `--json` and `--days` are the funnel's. */
const OPTIONS = { help: { type: "boolean" }, json: { type: "boolean" }, days: { type: "string" } } as const;

function age(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  return minutes < 60 ? `${minutes}m` : minutes < 48 * 60 ? `${Math.floor(minutes / 60)}h` : `${Math.floor(minutes / 1440)}d`;
}

const fromStore = (r: LeadRow): Row => ({
  id: r.id,
  kind: r.kind,
  acceptedAt: r.firstAcceptedAt,
  status: r.status as Row["status"],
  reason: r.parkedReason ?? undefined,
  lead: r.lead,
  key: r.key ?? r.id,
});

const redisOf = (config: Config) => (config.redisUrl ? operatorConnection(config.redisUrl) : undefined);

const fromRedis = (job: Job<QueuedLead>, status: Row["status"], reason?: string): Row => ({
  id: job.data.id,
  kind: job.data.kind,
  acceptedAt: job.data.acceptedAt,
  status,
  reason,
  lead: job.data,
  key: job.id ?? job.data.id,
});

/**
 * The leads to show: this store's pending, held and parked ones; with Redis, its queued and parked
 * jobs, and the leads this store handed over that Redis lost (pending). Not `complete` when a
 * lead's text or Redis could not be read (each said on `err`).
 */
async function leadsToShow(store: LeadStore | undefined, redis: Redis | undefined, queue: Queue<QueuedLead> | undefined, err: (line: string) => void) {
  let complete = true;
  const rows: Row[] = store ? store.list(["pending", "held", "parked"]).map(fromStore) : [];
  // Handed to Redis, not yet confirmed delivered: pending, unless Redis says otherwise below.
  let handed: Row[] = store ? store.list(["handed"]).map((r) => ({ ...fromStore(r), status: "pending" as const })) : [];
  for (const row of [...rows, ...handed].filter((r) => r.lead === null)) {
    complete = false;
    err(`leads: the text of lead ${row.id} could not be read`);
  }
  if (redis && queue) {
    try {
      // Still queued there: listed from Redis; delivered: done. What Redis lost stays pending here.
      const where = await whereInRedis(redis, queue, handed);
      handed = handed.filter((_, i) => where[i] === "missing");
      for (const job of await queue.getJobs(["waiting", "delayed", "active", "prioritized"])) rows.push(fromRedis(job, "pending"));
      for (const job of await queue.getJobs(["failed"])) rows.push(fromRedis(job, "parked", job.failedReason));
    } catch (error) {
      complete = false;
      err(`leads: Redis could not be read (${(error as Error).name}); showing the local store only`);
    }
  }
  const known = new Set(rows.map((row) => row.id));
  rows.push(...handed.filter((row) => !known.has(row.id)));
  return { rows, complete };
}

/**
 * `out` is stdout, `err` stderr; the exit code is 1 when something could not be read. `ask`: a
 * yes-or-no question on the operator's terminal, none when there is no terminal (erase).
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
  err: (line: string) => void = out,
  ask?: (question: string) => Promise<boolean>,
): Promise<number> {
  // A person's data on request, with flags of its own.
  if (argv[0] === "find" || argv[0] === "erase") return personalData(argv[0], argv.slice(1), env, out, err, ask);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    err(`leads: ${(error as Error).message}`);
    return 2;
  }
  const {
    values: flags,
    positionals: [command, ...ids],
  } = parsed;
  if (flags.help || !command || !COMMANDS.includes(command)) {
    out(USAGE);
    return flags.help ? 0 : 2;
  }
  // Elsewhere they would be swallowed, and a retry or release with no ids moves every lead.
  if (command !== "funnel" && (flags.json !== undefined || flags.days !== undefined)) {
    err(`leads: --json and --days are the funnel's; ${command} takes ids only`);
    return 2;
  }
  const config = parseConfig(env, version);
  if (command === "funnel") {
    if (ids.length === 0) return funnel(flags, config, out, err);
    err(`leads: Unexpected argument '${ids[0]}'. funnel takes no ids`);
    return 2;
  }
  let store: LeadStore | undefined;
  if (existsSync(config.leadsDb)) {
    try {
      store = openStore(config.leadsDb, undefined, { timeout: BUSY_WAIT_MS });
    } catch (error) {
      err(`leads: ${(error as Error).message}; nothing was changed`);
      return 1;
    }
  } else err(`leads: no lead store at ${config.leadsDb} yet (DATA_DIR=${config.dataDir})`);
  const redis = redisOf(config);
  const queue = redis && new Queue<QueuedLead>(QUEUE.name, { connection: redis, prefix: QUEUE.prefix });
  try {
    const { rows, complete } = await leadsToShow(store, redis, queue, err);
    const wanted = (id: string) => ids.length === 0 || ids.includes(id);
    if (command === "list") {
      out(["id", "kind", "status", "age", "reason"].join("\t"));
      for (const row of rows) out([row.id, row.kind, row.status, age(Date.now() - row.acceptedAt), row.reason ?? ""].join("\t"));
      // Delivered to a CRM (Zoho CRM) and still kept here: the record each lead became there.
      for (const row of store?.inCrm() ?? []) out([row.id, row.kind, "delivered", age(Date.now() - row.firstAcceptedAt), `record ${row.record}`].join("\t"));
    } else if (command === "export") {
      for (const row of rows) if (row.lead) out(JSON.stringify({ ...row.lead, status: row.status, reason: row.reason }));
    } else if (command === "status") {
      const local = store?.stats(Date.now());
      const counts = (status: Row["status"]) => rows.filter((row) => row.status === status).length;
      const oldest = Math.min(...rows.filter((row) => row.status === "pending").map((row) => row.acceptedAt));
      const status = {
        store: config.redisUrl ? "redis" : "sqlite",
        database: config.leadsDb,
        pending: counts("pending"),
        held: counts("held"),
        parked: counts("parked"),
        deliveredKept: local?.delivered ?? 0,
        oldestPendingSeconds: Number.isFinite(oldest) ? Math.round((Date.now() - oldest) / 1000) : null,
        retentionDays: config.retentionDays,
        leadsPerHour: config.leadsPerHour,
      };
      out(JSON.stringify(status, null, 2));
    } else {
      const from = command === "retry" ? "parked" : "held";
      let moved = 0;
      if (store) {
        try {
          moved += store.requeue(from, ids, Date.now());
        } catch (error) {
          err(`leads: the lead store could not be written (${sqliteCause(error).cause ?? "unknown"}); nothing was changed`);
          return 1;
        }
      }
      if (queue && from === "parked") {
        for (const job of await queue.getJobs(["failed"])) {
          if (!wanted(job.data.id)) continue;
          await job.updateData({ ...job.data, since: Date.now() });
          await job.retry("failed");
          moved += 1;
        }
      }
      out(`${command === "retry" ? "re-queued" : "released"} ${moved} lead(s); the server sends them within a few seconds (or when it next starts)`);
    }
    return complete ? 0 : 1;
  } finally {
    await queue?.close();
    redis?.disconnect();
    store?.close();
  }
}

/** `funnel`: the counters of the last days, Redis's (when REDIS_URL is set) and this folder's added up. */
async function funnel(flags: { json?: boolean; days?: string }, config: Config, out: (line: string) => void, err: (line: string) => void) {
  const count = Number(flags.days ?? 7);
  if (!Number.isInteger(count) || count < 1 || count > 400) {
    err("leads: --days must be a whole number from 1 to 400");
    return 2;
  }
  const redis = redisOf(config);
  const store = openFunnel({ file: config.funnelDb, redis, log: { warn: () => undefined }, settings: config.sources });
  try {
    const days = await store.read(lastDays(count));
    const sources = sourceWorth(days);
    if (flags.json) {
      out(JSON.stringify({ days, sources }, null, 2));
      return 0;
    }
    out(`The calculator's funnel, last ${count} days (Africa/Johannesburg)`);
    out(["date      ", ...STEP_NAMES.map((s) => s.padStart(7)), "Contact".padStart(8)].join(" "));
    for (const day of days) out([day.date, ...stepFigures(day).map((n) => String(n).padStart(7)), String(day.contactSent).padStart(8)].join(" "));
    const total = STEP_NAMES.map((_, step) => days.reduce((sum, day) => sum + stepFigures(day)[step]!, 0));
    out("");
    const widest = Math.max(1, ...total);
    total.forEach((n, i) => {
      const drop = i > 0 && total[i - 1]! > 0 ? `  (${Math.round((n / total[i - 1]!) * 100)}% of ${STEP_NAMES[i - 1]})` : "";
      out(`${STEP_NAMES[i]!.padEnd(7)} ${"█".repeat(Math.round((n / widest) * 40)).padEnd(40)} ${n}${drop}`);
    });
    out("");
    bySourceText(sources, count).forEach((line) => out(line));
    return 0;
  } catch (error) {
    err(`leads: the funnel could not be read (${(error as Error).name})`);
    return 1;
  } finally {
    await store.close();
    redis?.disconnect();
  }
}

/**
 * The funnel's sources as text: each named source's totals, then each day it brought something
 * (a day of zeros is left out), the rest summed as on GET /funnel (server/funnel-page.ts).
 */
function bySourceText(sources: SourceWorth[], count: number): string[] {
  const { named, rest } = namedSources(sources);
  const rows = rest ? [...named, rest] : named;
  if (rows.length === 0) return [`No source brought a visit to step 2 or a message in the last ${count} days.`];
  const width = Math.max(24, ...rows.map((row) => row.name.length + 2));
  const figures = (w: Worth) =>
    [String(w.step2).padStart(7), String(w.sent).padStart(7), percent(w.sendRate).padStart(14), String(w.contactSent).padStart(8)].join(" ");
  const lines = [
    `What each source brought, last ${count} days: visits that reached step 2, requests sent, sends per step-2 visit, contact messages`,
    ["source / day".padEnd(width), "Step 2".padStart(7), "Sent".padStart(7), "Step 2 → sent".padStart(14), "Contact".padStart(8)].join(" "),
  ];
  for (const row of rows) {
    lines.push(`${row.name.padEnd(width)} ${figures(row)}`);
    for (const day of row.days) if (day.step2 + day.sent + day.contactSent > 0) lines.push(`  ${day.date.padEnd(width - 2)} ${figures(day)}`);
  }
  if (rest)
    lines.push(
      `The ${NAMED_SOURCES} sources with the most visits at step 2 and contact messages by name; the other ${rest.sources} summed (--json lists each).`,
    );
  return lines;
}

if (process.argv[1]?.endsWith("leads.js")) {
  runCli(
    process.argv.slice(2),
    process.env,
    (line) => console.log(line),
    (line) => console.error(line),
    process.stdin.isTTY ? askOnTerminal : undefined,
  ).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`leads: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

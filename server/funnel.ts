/**
 * The calculator's funnel (decision 0036): a counter per day, event, device class and source (decision 0041), nothing
 * that tells one visit from another. On SQLite funnel.db, not synced to disk (a power cut may lose the last counts).
 */
import { setTimeout as pause } from "node:timers/promises";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import { FUNNEL_KEEP_DAYS as KEEP_DAYS } from "~/content/privacy";
import { AD_CLICKS, type Source, type SourceSettings, sourceKey, sourceOfKey } from "~/funnel/source";
import { DEVICES, type Device, FUNNEL_EVENTS, type FunnelEvent } from "~/funnel/visit";
import { preparedOnce, type Db, type Param, type Row } from "./db";
import type { Logger } from "./log";

/** What the funnel counts: a landing (a page request from outside the site), then the calculator's events. */
const COUNTED = ["landed", ...FUNNEL_EVENTS] as const;
export type Counted = (typeof COUNTED)[number];
export type Hit = { event: Counted; device: Device; source: string };
/** A lead's outcome as the funnel sums it: the day it was sent, its source and device; its value in rand, if given. */
export type OutcomeCount = { day: string; source: string; device: string; outcome: "won" | "lost"; value: number | null };
type Count = Hit & { day: string; n: number };
/** `n` hits of one day, from one address's code (undefined: not known). */
export type Batched = { day: string; hit: Hit; client: string | undefined; n: number };

/**
 * Distinct sources a day keeps, and new ones one address may add (more count as "other"), so one address cannot crowd
 * out another's campaign. A kind of place, the agency's campaigns and ad clicks always have room: made-up sources cannot hide them.
 */
export const SOURCES_A_DAY = 200;
export const NEW_SOURCES_A_CLIENT = 3;
const alwaysRoom = (key: string, settings: SourceSettings) => {
  const source = sourceOfKey(key);
  if (!source) return false;
  if (source.kind !== "campaign") return true;
  // A listed campaign's own content and term too; common words there would make it thousands of sources (16 million).
  const listed = (name: string | undefined) => name !== undefined && settings.names.has(name);
  if (listed(source.campaign) && [source.content, source.term].every((part) => part === undefined || listed(part))) return true;
  return Object.values(AD_CLICKS).some((ad) => sourceKey(ad) === key);
};
const COUNT_WAIT_MS = 1_000;

const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Johannesburg", year: "numeric", month: "2-digit", day: "2-digit" });
let last = { minute: NaN, day: "" };
/** The agency's day, YYYY-MM-DD. Its days start on the minute (UTC+2), so each minute's is formatted once: a landing asks on every page. */
export function dayOf(ms: number): string {
  const minute = Math.floor(ms / 60_000);
  if (minute !== last.minute) last = { minute, day: dayFormat.format(ms) };
  return last.day;
}
/** The last `n` days, oldest first, ending with today's. */
export const lastDays = (n: number, now = Date.now()) => Array.from({ length: n }, (_, i) => dayOf(now - (n - 1 - i) * 86_400_000));

const SCHEMA = `CREATE TABLE IF NOT EXISTS counts (
  day TEXT NOT NULL, event TEXT NOT NULL, device TEXT NOT NULL, source TEXT NOT NULL, n {int} NOT NULL,
  PRIMARY KEY (day, event, device, source)
){strict}`;
const ADD = `INSERT INTO counts (day, event, device, source, n) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (day, event, device, source) DO UPDATE SET n = counts.n + excluded.n`;
const COLUMNS = "day, event, device, source, n";

/**
 * The table, and the days past keeping deleted. A SQLite file says version 1 (sources as keys), which the release
 * before checks. Exclusive: two containers creating one table at once fail on PostgreSQL.
 */
const prepare = (db: Db) =>
  db.transaction(
    async (tx) => {
      await tx.run(SCHEMA);
      if (db.engine === "sqlite") await tx.run("PRAGMA user_version = 1");
      await tx.run("DELETE FROM counts WHERE day < ?", [dayOf(Date.now() - KEEP_DAYS * 86_400_000)]);
    },
    { exclusive: true },
  );

/** Adds funnel.db's counts (`from`) to PostgreSQL's (`to`) and empties `from`, so a second run adds nothing. Resolves with the counters moved. */
export async function importCounts(from: Db, to: Db): Promise<number> {
  await prepare(from);
  await prepare(to);
  return from.transaction(async (tx) => {
    const rows = await tx.all(`SELECT ${COLUMNS} FROM counts`);
    await to.transaction(async (into) => {
      for (const row of rows) await into.run(ADD, [row.day, row.event, row.device, row.source, row.n] as Param[]);
    });
    await tx.run("DELETE FROM counts");
    return rows.length;
  });
}

/** The user agent's class, from Client Hints or the agent string (read here, kept nowhere). */
export function deviceOfAgent(agent: string, mobileHint?: string | null): Device {
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i.test(agent)) return "tablet";
  return mobileHint === "?1" || /Mobi|iPhone|iPod|Windows Phone/i.test(agent) ? "phone" : "desktop";
}

/** What one request counts; a known bot nothing. `headers`: a Fetch request's, or a `get` over Node's. */
export function hitOf(event: Counted, headers: { get(name: string): string | null | undefined }, source: Source): Hit | null {
  const agent = headers.get("user-agent") ?? "";
  if (agent === "" || isbot(agent)) return null;
  return { event, device: deviceOfAgent(agent, headers.get("sec-ch-ua-mobile")), source: sourceKey(source) };
}

/**
 * The counts on `db`, which the caller closes after `close`. `counted` reports each count to the metrics; `outcomes`
 * reads the leads' outcomes of a range of days (kept in the lead store, which on SQLite is another file).
 */
export function openFunnel({
  db,
  log,
  settings,
  counted,
  outcomes,
}: {
  db: Db;
  log: Pick<Logger, "warn">;
  settings: SourceSettings;
  counted?: (hit: Hit) => void;
  outcomes?: (from: string, to: string) => Promise<OutcomeCount[]>;
}) {
  const ready = preparedOnce(
    () => prepare(db),
    () => dayOf(Date.now()), // again each day, so the days past keeping go
  );
  const added = new LRUCache<string, number>({ max: 50_000, ttl: 86_400_000 });
  const mayAdd = (day: string, client: string | undefined) => {
    const key = `${day} ${client ?? ""}`;
    const n = added.get(key) ?? 0;
    if (n >= NEW_SOURCES_A_CLIENT) return false;
    added.set(key, n + 1);
    return true;
  };
  async function count(day: string, { event, device, source }: Hit, client: string | undefined, n = 1) {
    await ready();
    const known = await db.get("SELECT 1 AS known FROM counts WHERE day = ? AND source = ? LIMIT 1", [day, source]);
    const room = () => db.get("SELECT count(DISTINCT source) AS n FROM counts WHERE day = ?", [day]).then((row) => Number(row?.n) < SOURCES_A_DAY);
    const kept = Boolean(known) || ((alwaysRoom(source, settings) || (await room())) && mayAdd(day, client));
    await db.run(ADD, [day, event, device, kept ? source : "other", n]);
    return kept;
  }
  const writing = new Set<Promise<void>>();
  /** Never throws: a count is worth less than a step. */
  async function tracked(counting: Promise<void>) {
    const write = counting.catch((error: unknown) => log.warn({ err: error }, "funnel_not_counted"));
    writing.add(write);
    await write;
    writing.delete(write);
  }
  const add = (hit: Hit, client?: string, now = Date.now()) => tracked(count(dayOf(now), hit, client).then(() => undefined));

  return {
    add,
    /**
     * Counts summed in memory (server/landings.ts), each under the rules `add` applies to one; once a source is kept
     * on its day, the rest of it are summed and written at once (the rules keep a known source whoever brings it).
     * Never throws: resolves with what a failure left unwritten, for the next batch.
     */
    async addBatch(batch: Iterable<Batched>): Promise<Batched[]> {
      const entries = [...batch];
      const known = new Set<string>();
      const summed = new Map<string, Batched>();
      let next = 0;
      await tracked(
        (async () => {
          for (; next < entries.length; next++) {
            const entry = entries[next]!;
            const source = `${entry.day} ${entry.hit.source}`;
            if (!known.has(source)) {
              if (await count(entry.day, entry.hit, entry.client, entry.n)) known.add(source);
              continue;
            }
            const key = `${source} ${entry.hit.event} ${entry.hit.device}`;
            const sum = summed.get(key);
            if (sum) sum.n += entry.n;
            else summed.set(key, { ...entry });
          }
          for (const [key, { day, hit, n }] of summed) {
            await db.run(ADD, [day, hit.event, hit.device, hit.source, n]);
            summed.delete(key);
          }
        })(),
      );
      return [...entries.slice(next), ...summed.values()];
    },
    /** The load context's `countVisit`; `client`, the address's code, is kept nowhere. */
    async count(request: Request, event: FunnelEvent, source: Source, client?: string) {
      const hit = hitOf(event, request.headers, source);
      if (!hit) return;
      counted?.(hit);
      // A database that does not answer holds the visitor no longer than this.
      await Promise.race([add(hit, client), pause(COUNT_WAIT_MS, undefined, { ref: false })]);
    },
    async read(days: string[]): Promise<FunnelDay[]> {
      await ready();
      const counts = await db.all(`SELECT ${COLUMNS} FROM counts WHERE day >= ? AND day <= ?`, [days[0]!, days.at(-1)!]);
      return summarise(days, counts, (await outcomes?.(days[0]!, days.at(-1)!)) ?? []);
    },
    close: async () => void (await Promise.allSettled(writing)),
  };
}

/** `won`: leads sent that day (either form) the agency won since; `value`: theirs in rand, where recorded. */
export type Steps = { landed: number; reached: Record<"2" | "3" | "4" | "5", number>; sent: number; contactSent: number; won: number; value: number };
/** `rows`: the day's figures per source and device, each with any (`funnel --csv`); an outcome's device as the lead had it. */
export type FunnelDay = Steps & { date: string; byDevice: Record<Device, Steps>; bySource: Record<string, Steps>; rows: FunnelRow[] };
type FunnelRow = Steps & { source: string; device: string };

export const emptySteps = (): Steps => ({ landed: 0, reached: { 2: 0, 3: 0, 4: 0, 5: 0 }, sent: 0, contactSent: 0, won: 0, value: 0 });
function addTo(steps: Steps, event: Counted, n: number) {
  if (event === "landed") steps.landed += n;
  else if (event === "sent") steps.sent += n;
  else if (event === "contact") steps.contactSent += n;
  else steps.reached[event] += n;
}

/** Days as `funnel --json` prints them, oldest first with zeros. */
export function summarise(days: string[], rows: Row[], outcomes: OutcomeCount[] = []): FunnelDay[] {
  const counts = rows as unknown as Count[];
  const isDevice = (device: string): device is Device => (DEVICES as readonly string[]).includes(device);
  const valid = counts.filter((c) => (COUNTED as readonly string[]).includes(c.event) && isDevice(c.device));
  return days.map((date) => {
    const day: FunnelDay = { date, ...emptySteps(), byDevice: { phone: emptySteps(), tablet: emptySteps(), desktop: emptySteps() }, bySource: {}, rows: [] };
    const rows = new Map<string, FunnelRow>();
    const row = (source: string, device: string) => {
      const key = `${source} ${device}`;
      return rows.get(key) ?? rows.set(key, { source, device, ...emptySteps() }).get(key)!;
    };
    for (const c of valid) {
      if (c.day !== date) continue;
      for (const steps of [day, day.byDevice[c.device], (day.bySource[c.source] ??= emptySteps()), row(c.source, c.device)]) addTo(steps, c.event, c.n);
    }
    for (const o of outcomes) {
      if (o.day !== date || o.outcome !== "won") continue;
      const device = isDevice(o.device) ? [day.byDevice[o.device]] : [];
      for (const steps of [day, ...device, (day.bySource[o.source] ??= emptySteps()), row(o.source, o.device)]) {
        steps.won += 1;
        steps.value += o.value ?? 0;
      }
    }
    day.rows = [...rows.values()].sort((a, b) => a.source.localeCompare(b.source) || a.device.localeCompare(b.device));
    return day;
  });
}

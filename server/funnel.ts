/**
 * The calculator's funnel (decision 0036): one counter per day (the agency's time zone), event,
 * device class and source (a name the agency gave or a kind of place: decision 0041), and nothing
 * else: no address, user agent, cookie or visitor id. In the data folder's own SQLite file by
 * default; with REDIS_URL in Redis, so every container adds to one total. A count Redis cannot
 * take goes to the local file instead, and reading adds both.
 */
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Redis } from "ioredis";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import { FUNNEL_KEEP_DAYS as KEEP_DAYS } from "~/content/privacy";
import { AD_CLICKS, LISTABLE, reclassifiedKey, type Source, type SourceSettings, sourceKey, sourceOfKey } from "~/funnel/source";
import { DEVICES, type Device, FUNNEL_EVENTS, type FunnelEvent } from "~/funnel/visit";
import type { Logger } from "./log";
import { retryWhileBusy } from "./leads/database";
import { closeConnection, countConnection, watchRedis } from "./redis";

export interface Hit {
  event: FunnelEvent;
  device: Device;
  source: string;
}
interface Count extends Hit {
  day: string;
  n: number;
}

/**
 * Distinct sources a day keeps, and how many of them one client's address may add: a later new
 * one counts as "other". Every source is a name the agency gave or a kind of place, but their
 * combinations are many: so one address cannot fill the day and crowd out another's campaign.
 * The day's bound never turns away a kind of place or one of the agency's own campaigns (a set
 * the settings bound): many addresses filling it with made-up combinations cannot hide them.
 */
export const SOURCES_A_DAY = 200;
export const NEW_SOURCES_A_CLIENT = 3;
const alwaysRoom = (key: string, settings: SourceSettings) => {
  const source = sourceOfKey(key);
  if (!source) return false;
  if (source.kind !== "campaign") return true;
  return (source.campaign !== undefined && settings.names.has(source.campaign)) || Object.values(AD_CLICKS).some((ad) => sourceKey(ad) === key);
};
/** How long a count (or a read) waits for another process's lock on the file, without blocking; then it is not counted. */
const LOCK_WAIT_MS = 1_000;

const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Johannesburg", year: "numeric", month: "2-digit", day: "2-digit" });
/** The agency's day (Africa/Johannesburg: UTC+2, no daylight saving), as YYYY-MM-DD. */
export const dayOf = (ms: number) => dayFormat.format(ms);
/** The last `n` days, oldest first, ending with today's. */
export const lastDays = (n: number, now = Date.now()) => Array.from({ length: n }, (_, i) => dayOf(now - (n - 1 - i) * 86_400_000));

/**
 * The local file, opened, prepared and cleared of days past keeping. SQLite's own wait for a lock
 * is 0 ms: it would block the event loop, so a lock another process holds fails at once and the
 * caller waits (retryWhileBusy). A count's commit is not fsync'd (synchronous NORMAL, in WAL mode):
 * the disk is not waited for on every step, and a power cut may lose the last counts, never the file.
 */
function openFile(file: string, settings: SourceSettings) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Counts only, but kept like the lead store: readable by the server's user alone.
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  const db = new DatabaseSync(file, { timeout: 0 });
  try {
    return prepared(db, settings);
  } catch (error) {
    db.close();
    throw error;
  }
}

function prepared(db: DatabaseSync, settings: SourceSettings) {
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS counts (
  day TEXT NOT NULL, event TEXT NOT NULL, device TEXT NOT NULL, source TEXT NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (day, event, device, source)
) STRICT, WITHOUT ROWID;`);
  if (Number(db.prepare("PRAGMA user_version").get()?.user_version) < 1) reclassify(db, settings);
  const known = db.prepare("SELECT 1 FROM counts WHERE day = ? AND source = ? LIMIT 1");
  const sources = db.prepare("SELECT COUNT(DISTINCT source) AS n FROM counts WHERE day = ?");
  const add = db.prepare("INSERT INTO counts VALUES (?, ?, ?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1");
  const read = db.prepare("SELECT day, event, device, source, n FROM counts WHERE day >= ? AND day <= ?");
  db.prepare("DELETE FROM counts WHERE day < ?").run(dayOf(Date.now() - KEEP_DAYS * 86_400_000));
  return {
    add(day: string, { event, device, source }: Hit, mayAdd: () => boolean) {
      const kept = known.get(day, source) || ((alwaysRoom(source, settings) || Number(sources.get(day)?.n) < SOURCES_A_DAY) && mayAdd());
      add.run(day, event, device, kept ? source : "other");
    },
    read: (from: string, to: string) => read.all(from, to) as unknown as Count[],
    close: () => db.close(),
  };
}

/** The user agent's class, from Client Hints or the agent string (which is read here and kept nowhere). */
/**
 * Version 1: sources kept before they were named (free utm text, any referring host) counted as
 * this rule counts them now (decision 0041), so none of what a link's author wrote stays.
 */
function reclassify(db: DatabaseSync, settings: SourceSettings) {
  // Deleted rows' bytes are overwritten, not left in free pages.
  db.exec("PRAGMA secure_delete = ON; BEGIN IMMEDIATE");
  try {
    const move = db.prepare(`INSERT INTO counts SELECT day, event, device, ?, n FROM counts WHERE source = ? AND true
ON CONFLICT DO UPDATE SET n = n + excluded.n`);
    const drop = db.prepare("DELETE FROM counts WHERE source = ?");
    for (const { source } of db.prepare("SELECT DISTINCT source FROM counts").all() as { source: string }[]) {
      const now = reclassifiedKey(source, settings);
      if (now === source) continue;
      move.run(now, source);
      drop.run(source);
    }
    db.exec("PRAGMA user_version = 1; COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

export function deviceOfAgent(agent: string, mobileHint?: string | null): Device {
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i.test(agent)) return "tablet";
  return mobileHint === "?1" || /Mobi|iPhone|iPod|Windows Phone/i.test(agent) ? "phone" : "desktop";
}

/** What one request counts: `event` with the user agent's device class and the source's key. A known bot counts nothing. */
export function hitOf(event: FunnelEvent, headers: Headers, source: Source): Hit | null {
  const agent = headers.get("user-agent") ?? "";
  if (agent === "" || isbot(agent)) return null;
  return { event, device: deviceOfAgent(agent, headers.get("sec-ch-ua-mobile")), source: sourceKey(source) };
}

const redisKey = (day: string) => `funnel:${day}`;

/** `file`: the local SQLite file; `redis`: a shared connection when REDIS_URL is set. */
export function openFunnel({ file, redis, log, settings }: { file: string; redis?: Redis; log: Pick<Logger, "warn">; settings: SourceSettings }) {
  let local: ReturnType<typeof openFile> | undefined;
  const opened = () => (local ??= openFile(file, settings));
  /** New sources each client's address added today (its key and the day): at most NEW_SOURCES_A_CLIENT. */
  const added = new LRUCache<string, number>({ max: 50_000, ttl: 86_400_000 });
  const mayAdd = (day: string, client: string | undefined) => () => {
    const key = `${day} ${client ?? ""}`;
    const n = added.get(key) ?? 0;
    if (n >= NEW_SOURCES_A_CLIENT) return false;
    added.set(key, n + 1);
    return true;
  };
  /** Counts waiting for another process's lock on the file: close lets them finish first. */
  const writing = new Set<Promise<void>>();

  /**
   * Redis's counts kept before sources were named, counted as the rule counts them now (decision
   * 0041): once, by the first container to claim it, before this process first uses Redis.
   */
  let reclassified: Promise<void> | undefined;
  async function reclassifyRedis() {
    if ((await redis!.set("funnel:rule", "0041", "NX")) === null) return;
    for (const day of lastDays(KEEP_DAYS)) {
      const key = redisKey(day);
      const multi = redis!.multi();
      for (const [field, n] of Object.entries(await redis!.hgetall(key))) {
        const [event, device, source = ""] = field.split("|");
        const now = reclassifiedKey(source, settings);
        if (now !== source)
          multi.hincrby(key, `${event}|${device}|${now}`, Number(n)).hdel(key, field).srem(`${key}:sources`, source).sadd(`${key}:sources`, now);
      }
      if (multi.length > 0) await multi.exec();
    }
  }
  const redisReady = () =>
    (reclassified ??= reclassifyRedis().catch((error: unknown) => {
      reclassified = undefined;
      throw error;
    }));

  async function addToRedis(day: string, { event, device, source }: Hit, mayAdd: () => boolean) {
    await redisReady();
    const key = redisKey(day);
    // A source joins the day's set only while it has room: a flood of made-up ones grows nothing.
    const [[, known], [, size]] = (await redis!.multi().sismember(`${key}:sources`, source).scard(`${key}:sources`).exec()) as [
      [unknown, number],
      [unknown, number],
    ];
    const kept = known === 1 || ((alwaysRoom(source, settings) || size < SOURCES_A_DAY) && mayAdd()) ? source : "other";
    if (known === 0 && kept === source) await redis!.sadd(`${key}:sources`, source);
    await redis!
      .multi()
      .hincrby(key, `${event}|${device}|${kept}`, 1)
      .expire(key, KEEP_DAYS * 86_400)
      .expire(`${key}:sources`, KEEP_DAYS * 86_400)
      .exec();
  }

  return {
    /** Adds one to today's counter for `hit` from `client` (its address's key); never throws (a count is worth less than a step). */
    async add(hit: Hit, client?: string, now = Date.now()) {
      const day = dayOf(now);
      try {
        if (redis) return await addToRedis(day, hit, mayAdd(day, client));
      } catch (error) {
        log.warn({ err: error }, "funnel_redis_failed");
      }
      const write = retryWhileBusy(() => opened().add(day, hit, mayAdd(day, client)), LOCK_WAIT_MS);
      writing.add(write);
      try {
        await write;
      } catch (error) {
        log.warn({ err: error }, "funnel_not_counted");
      } finally {
        writing.delete(write);
      }
    },
    /** The counters of `days` (YYYY-MM-DD, oldest first), Redis's and the local file's added up. */
    async read(days: string[]): Promise<FunnelDay[]> {
      const counts: Count[] = await retryWhileBusy(() => opened().read(days[0]!, days.at(-1)!), LOCK_WAIT_MS);
      if (redis) {
        await redisReady();
        const hashes = await Promise.all(days.map((day) => redis.hgetall(redisKey(day))));
        days.forEach((day, i) => {
          for (const [field, n] of Object.entries(hashes[i]!)) {
            const [event, device, source] = field.split("|") as [FunnelEvent, Device, string];
            counts.push({ day, event, device, source, n: Number(n) });
          }
        });
      }
      return summarise(days, counts);
    },
    async close() {
      await Promise.allSettled(writing);
      local?.close();
    },
  };
}

/**
 * The server's funnel: `count` is the load context's `countVisit`; `counted` reports each count
 * (metrics). What a client can post is bounded before it gets here: the beacons by their own
 * `funnel` limit, the steps without JavaScript by the post limit, sends by the lead rules.
 */
export function createFunnel({
  file,
  redisUrl,
  log,
  counted,
  settings,
}: {
  file: string;
  redisUrl?: string;
  log: Logger;
  counted?: (hit: Hit) => void;
  settings: SourceSettings;
}) {
  const redis = redisUrl ? watchRedis(countConnection(redisUrl), log, { event: "funnel_store", fallback: "sqlite" }) : undefined;
  const store = openFunnel({ file, redis, log, settings });
  return {
    /** `client`: the key of the request's client address (server/rate-limits.ts), which is used here and kept nowhere. */
    async count(request: Request, event: FunnelEvent, source: Source, client?: string) {
      const hit = hitOf(event, request.headers, source);
      if (!hit) return;
      counted?.(hit);
      await store.add(hit, client);
    },
    read: (days: string[]) => store.read(days),
    async close() {
      await store.close();
      if (redis) await closeConnection(redis);
    },
  };
}

export type Steps = { reached: Record<"2" | "3" | "4" | "5", number>; sent: number; contactSent: number };
/** The five figures the operator reads, in order (`npm run leads -- funnel` and GET /funnel). */
export const STEP_NAMES = ["Step 2", "Step 3", "Step 4", "Step 5", "Sent"];
export const stepFigures = (steps: Steps) => [steps.reached[2], steps.reached[3], steps.reached[4], steps.reached[5], steps.sent];
/** A day's figures, split by device class and by every source's key (app/funnel/source.ts). */
export type FunnelDay = Steps & { date: string; byDevice: Record<Device, Steps>; bySource: Record<string, Steps> };

const empty = (): Steps => ({ reached: { 2: 0, 3: 0, 4: 0, 5: 0 }, sent: 0, contactSent: 0 });
function addTo(steps: Steps, event: FunnelEvent, n: number) {
  if (event === "sent") steps.sent += n;
  else if (event === "contact") steps.contactSent += n;
  else steps.reached[event] += n;
}

/**
 * A stored source that is not a key as the rule writes it (app/funnel/source.ts: names of a few
 * plain characters) is read as "other", never shown as written.
 */
const keyOf = (stored: string) => {
  const source = sourceOfKey(stored);
  const named =
    source &&
    sourceKey(source) === stored &&
    (source.kind === "site" ? /^[a-z0-9.-]{1,253}$/.test(source.host) : stored.split(/[/:]/).every((part) => part === "" || LISTABLE.test(part)));
  return named ? stored : "other";
};

/**
 * Days as `npm run leads -- funnel --json` prints them, oldest first with zeros: every source by
 * its key. Which of them a report names is the reports' choice (namedSources): here "other" is
 * only what the rule did not name.
 */
export function summarise(days: string[], counts: Count[]): FunnelDay[] {
  const valid = counts.filter((c) => (FUNNEL_EVENTS as readonly string[]).includes(c.event) && (DEVICES as readonly string[]).includes(c.device));
  return days.map((date) => {
    const day: FunnelDay = { date, ...empty(), byDevice: { phone: empty(), tablet: empty(), desktop: empty() }, bySource: {} };
    for (const c of valid) {
      if (c.day !== date) continue;
      addTo(day, c.event, c.n);
      addTo(day.byDevice[c.device], c.event, c.n);
      addTo((day.bySource[keyOf(c.source)] ??= empty()), c.event, c.n);
    }
    return day;
  });
}

/**
 * What a source brought in some days: visits that reached step 2, calculator requests sent,
 * contact messages sent, and `sendRate`, sends per step-2 visit (null without one). The rate is
 * of counts, not of people followed: a send counts on its own day, so a day's rate can pass 1
 * when a visit began the day before.
 */
export interface Worth {
  step2: number;
  sent: number;
  contactSent: number;
  sendRate: number | null;
}
/** One source over a range (`--json`'s `sources`): its key, its name in words, its totals, and each day's. */
export interface SourceWorth extends Worth {
  key: string;
  name: string;
  days: (Worth & { date: string })[];
}

const worth = (step2: number, sent: number, contactSent: number): Worth => ({ step2, sent, contactSent, sendRate: step2 > 0 ? sent / step2 : null });

/**
 * How many sources a report names; the rest are summed in one row. Every source is a name the
 * agency gave or a kind of place, but forged beacons can add a few hundred of them a day, and a
 * printed page must stay a page: the ten that brought the most visits say where the work
 * comes from (decision 0045). `--json` lists every one.
 */
export const NAMED_SOURCES = 10;

/** The search engines', networks' and assistants' names as their owners write them. */
const BRANDS: Record<string, string> = {
  google: "Google",
  bing: "Bing",
  yahoo: "Yahoo",
  duckduckgo: "DuckDuckGo",
  ecosia: "Ecosia",
  brave: "Brave",
  baidu: "Baidu",
  yandex: "Yandex",
  linkedin: "LinkedIn",
  facebook: "Facebook",
  instagram: "Instagram",
  x: "X (Twitter)",
  youtube: "YouTube",
  tiktok: "TikTok",
  pinterest: "Pinterest",
  reddit: "Reddit",
  whatsapp: "WhatsApp",
  threads: "Threads",
  chatgpt: "ChatGPT",
  perplexity: "Perplexity",
  gemini: "Gemini",
  copilot: "Copilot",
  claude: "Claude",
};
const brand = (name: string) => BRANDS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

/**
 * A source's key in the words a marketer reads: "newsletter · email · spring" (the campaign's
 * utm values as the agency named them; "–" for a part left out before one given), "Google search",
 * "LinkedIn (social)", "A link on example.co.za", "Direct", "Other (not named)".
 */
export function sourceName(key: string): string {
  const source = sourceOfKey(key);
  switch (source?.kind) {
    case "campaign":
      return [source.source, source.medium, source.campaign]
        .map((part) => part ?? "–")
        .join(" · ")
        .replace(/( · –)+$/, "");
    case "search":
      return `${brand(source.name)} search`;
    case "social":
      return `${brand(source.name)} (social)`;
    case "assistant":
      return `${brand(source.name)} (AI assistant)`;
    case "site":
      return `A link on ${source.host}`;
    case "link":
      return "A link on another site";
    case "direct":
      return "Direct";
    case "unknown":
      return "Not known (no JavaScript)";
    default:
      return "Other (not named)";
  }
}

/**
 * Every source of `days` with each day's worth and the range's, first the one that brought the
 * most visits at step 2 and contact messages together (a visit that chose a service or wrote),
 * then the most sends, then by name.
 */
export function sourceWorth(days: FunnelDay[]): SourceWorth[] {
  const keys = [...new Set(days.flatMap((day) => Object.keys(day.bySource)))];
  const rows = keys.map((key): SourceWorth => {
    const daily = days.map((day) => {
      const steps = day.bySource[key] ?? empty();
      return { date: day.date, ...worth(steps.reached[2], steps.sent, steps.contactSent) };
    });
    const total = (pick: (w: Worth) => number) => daily.reduce((sum, w) => sum + pick(w), 0);
    return {
      key,
      name: sourceName(key),
      ...worth(
        total((w) => w.step2),
        total((w) => w.sent),
        total((w) => w.contactSent),
      ),
      days: daily,
    };
  });
  return rows.sort((a, b) => b.step2 + b.contactSent - (a.step2 + a.contactSent) || b.sent - a.sent || a.name.localeCompare(b.name));
}

/** The first `n` of ranked sources by name, and the rest summed as one (undefined when there is none; one left is named too). */
export function namedSources(ranked: SourceWorth[], n = NAMED_SOURCES): { named: SourceWorth[]; rest?: SourceWorth & { sources: number } } {
  if (ranked.length <= n + 1) return { named: ranked };
  const [named, others] = [ranked.slice(0, n), ranked.slice(n)];
  const sum = (pick: (w: Worth) => number, of: Worth[]) => of.reduce((total, w) => total + pick(w), 0);
  const add = (of: Worth[]) =>
    worth(
      sum((w) => w.step2, of),
      sum((w) => w.sent, of),
      sum((w) => w.contactSent, of),
    );
  const days = others[0]!.days.map((day, i) => ({ date: day.date, ...add(others.map((o) => o.days[i]!)) }));
  return { named, rest: { key: "", name: `${others.length} more sources, summed`, sources: others.length, ...add(others), days } };
}

/** A send rate as the reports print it: "67%", or "–" without a step-2 visit. */
export const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);

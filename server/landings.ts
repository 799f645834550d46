/**
 * Landings (decision 0051): a page's document GET from outside the site (no Referer, another site's, or campaign tags),
 * under its source by the funnel's one rule. Counted in memory and written in batches, so a page never waits on a count.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import proxyAddr from "proxy-addr";
import { sourceOfQuery } from "~/funnel/count.server";
import type { SourceSettings } from "~/funnel/source";
import { type Batched, dayOf, type Hit, hitOf } from "./funnel";
import type { Logger } from "./log";
import { clientKey } from "./rate-limits";

/**
 * Landings one address code adds a day. An office or a household shares an address, and one visitor comes back from
 * several links and reloads: twenty holds them. A flood from one address adds twenty, then nothing.
 */
export const LANDINGS_A_CLIENT = 20;
const FLUSH_MS = 5_000;
/** Batched entries (day, address code, source, device) kept between writes; past it a new one waits for the next batch's room. */
const PENDING_MAX = 10_000;
/** Headers with which a browser says it only fetches ahead (a prefetch, a prerender, Safari's preview). */
const PURPOSES = ["sec-purpose", "purpose", "x-purpose", "x-moz"];
const AHEAD = /prefetch|prerender|preview/i;

export function countLandings({
  pagePaths,
  settings,
  trust,
  addressCode,
  funnel,
  log,
  counted,
  flushMs = FLUSH_MS,
}: {
  pagePaths: Iterable<string>;
  settings: SourceSettings;
  /** Express's "trust proxy fn": the address Express would call the client's. */
  trust: (address: string, hop: number) => boolean;
  addressCode: (client: string) => string;
  funnel: { addBatch(batch: Iterable<Batched>): Promise<Batched[]> };
  log: Pick<Logger, "warn">;
  counted?: (hit: Hit) => void;
  flushMs?: number;
}) {
  const pages = new Set(pagePaths);
  const landed = new LRUCache<string, number>({ max: 50_000, ttl: 86_400_000 });
  // An address's code for a minute, as the rate limits count an address for minutes: its keyed hash, once a minute, not
  // once a page (a third of a landing's cost, and a flood's whole cost past its bound).
  const codes = new LRUCache<string, string>({ max: 10_000, ttl: 60_000, memoMethod: addressCode });
  let pending = new Map<string, Batched>();
  let writing: Promise<void> | undefined;

  /** A count is never worth a page: what throws here is logged, and the page goes on. */
  function safely<T>(work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      log.warn({ err: error }, "landing_not_counted");
      return undefined;
    }
  }

  type Landing = { day: string; client: string; hit: Hit };
  const boundOf = ({ day, client }: { day: string; client: string }) => `${day} ${client}`;

  /**
   * A landing, or null. The bound is looked at before the source is worked out: an address past it (a flood) costs a
   * page no more than that look.
   */
  function landingOf(req: IncomingMessage): Landing | null {
    const url = req.url ?? "";
    const mark = url.indexOf("?");
    if (req.method !== "GET" || !pages.has(mark === -1 ? url : url.slice(0, mark))) return null;
    const { headers } = req;
    const dest = headers["sec-fetch-dest"];
    if ((dest !== undefined && dest !== "document") || PURPOSES.some((name) => AHEAD.test(String(headers[name] ?? "")))) return null;
    const day = dayOf(Date.now());
    const client = codes.memo(clientKey(proxyAddr(req, trust)));
    if ((landed.get(boundOf({ day, client })) ?? 0) >= LANDINGS_A_CLIENT) return null;
    const params = new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1));
    if (params.has("_data")) return null;
    const forwarded = headers["x-forwarded-host"];
    const hosts = [headers.host ?? "", ...(forwarded && trust(req.socket.remoteAddress ?? "", 0) ? [String(forwarded).split(",")[0]!.trim()] : [])];
    const referer = headers.referer;
    const source = sourceOfQuery(params, referer === undefined ? "" : (URL.parse(referer)?.host ?? ""), hosts, settings);
    // From a page of this site, with no tags: its Referer says so, or the browser does (Sec-Fetch-Site) where a policy dropped it.
    if ((referer !== undefined || headers["sec-fetch-site"] === "same-origin") && source.kind === "direct") return null;
    const hit = hitOf("landed", { get: (name) => headers[name] as string | undefined }, source);
    return hit && { day, client, hit };
  }

  function add(landing: Landing) {
    const bound = boundOf(landing);
    const n = landed.get(bound) ?? 0;
    if (n >= LANDINGS_A_CLIENT) return;
    landed.set(bound, n + 1);
    counted?.(landing.hit);
    keep({ ...landing, n: 1 });
  }
  function keep(entry: Batched) {
    const key = `${entry.day} ${entry.client} ${entry.hit.source} ${entry.hit.device}`;
    const batched = pending.get(key);
    if (batched) batched.n += entry.n;
    else if (pending.size < PENDING_MAX) pending.set(key, { ...entry });
  }

  /** One batch at a time: a slow database holds the next one in memory, not two writes at once; what it could not write waits for the next. */
  function flush(): Promise<void> {
    if (writing || pending.size === 0) return writing ?? Promise.resolve();
    const batch = pending.values();
    pending = new Map();
    writing = funnel
      .addBatch(batch)
      .then((left) => left.forEach(keep))
      .finally(() => (writing = undefined));
    return writing;
  }
  const timer = setInterval(() => void flush(), flushMs).unref();

  return {
    /** The HTTP server's "request" listener: decides at once, counts once the page is answered (200, or 304 to a reload). */
    count(req: IncomingMessage, res: ServerResponse) {
      const landing = safely(() => landingOf(req));
      if (landing) res.once("finish", () => (res.statusCode === 200 || res.statusCode === 304) && safely(() => add(landing)));
    },
    flush,
    /** At the stop, after the server closed and before the database does: the last batch written. */
    async close() {
      clearInterval(timer);
      await writing;
      await flush();
    },
  };
}

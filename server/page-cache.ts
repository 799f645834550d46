/**
 * Public pages rendered once and kept as brotli, gzip and identity bytes (decision 0014), under their path and the
 * parameters that select what they show. A miss renders the key's URL itself, with no visitor's Host, cookie or campaign.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import fresh from "fresh";
import CachePolicy from "http-cache-semantics";
import { LRUCache } from "lru-cache";
import Negotiator from "negotiator";
import type { PageVariants } from "~/page-variants.server";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

type Coding = "br" | "gzip" | "identity";
const CODINGS: Coding[] = ["br", "gzip", "identity"];
/** negotiator ≥ 1 breaks ties by `preferred`, which its types predate. */
type Negotiating = { encoding(available: Coding[], options: { preferred: Coding[] }): Coding | undefined };
const etagOf = (etag: string, coding: Coding) => (coding === "identity" ? etag : `${etag.slice(0, -1)}-${coding}"`);

/** Per coding, the body and the flat header list for writeHead. */
export type Page = { status: number; etag: string; bodies: Record<Coding, Buffer>; headers: Record<Coding, string[]> };

/** `privateParams`: a request carrying any is never answered from here; `commonHeaders`: a page's own win. */
export interface PageCacheOptions {
  pagePaths: Iterable<string>;
  variants: PageVariants;
  privateParams: readonly string[];
  render: (key: string) => Promise<Response>;
  commonHeaders: readonly (readonly [string, string])[];
  maxEntries?: number;
}

/** Seconds a shared cache may keep this answer fresh, or 0. */
export function sharedTtl(key: string, response: { status: number; headers: Headers }): number {
  const headers = Object.fromEntries(response.headers);
  if (response.status !== 200 || "set-cookie" in headers) return 0;
  const policy = new CachePolicy({ method: "GET", url: key, headers: {} }, { status: response.status, headers }, { shared: true });
  return policy.storable() ? policy.maxAge() : 0;
}

export function createPageCache({ pagePaths, variants, privateParams, render, commonHeaders, maxEntries = 100 }: PageCacheOptions) {
  const paths = new Set(pagePaths);
  const privates = new Set(privateParams);
  const codings = new LRUCache<string, Coding>({
    max: 200,
    memoMethod: (accept) => (new Negotiator({ headers: { "accept-encoding": accept } }) as Negotiating).encoding(CODINGS, { preferred: CODINGS }) ?? "identity",
  });
  // Keys whose answer was not one to keep (a 404) go straight to Remix for a minute: one render, not two.
  const unkept = new LRUCache<string, true>({ max: maxEntries, ttl: 60_000 });
  const kept = new LRUCache<string, Page>({
    max: maxEntries,
    // Served stale (stale-while-revalidate) while a fresh render replaces it.
    allowStale: true,
    noDeleteOnStaleGet: true,
    allowStaleOnFetchRejection: true,
    fetchMethod: async (key, _stale, { options }) => {
      const response = await render(key);
      const body = Buffer.from(await response.arrayBuffer());
      const ttl = sharedTtl(key, response);
      if (ttl === 0) return void unkept.set(key, true); // not for keeping: the request goes on to Remix as it is
      options.ttl = ttl * 1000;
      return keep(response, body);
    },
  });

  async function keep(response: Response, identity: Buffer): Promise<Page> {
    const [br, gz] = await Promise.all([
      brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }),
      gzipped(identity, { level: 9 }),
    ]);
    const bodies = { br, gzip: gz, identity };
    const etag = `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
    const own = new Map<string, string>(commonHeaders.map(([name, value]) => [name.toLowerCase(), value]));
    for (const [name, value] of response.headers) if (name !== "content-length") own.set(name, value);
    own.set("vary", "Accept-Encoding");
    const headers = {} as Record<Coding, string[]>;
    for (const coding of CODINGS) {
      const list = new Map(own).set("etag", etagOf(etag, coding));
      if (coding !== "identity") list.set("content-encoding", coding);
      list.set("content-length", String(bodies[coding].length));
      headers[coding] = [...list].flat();
    }
    return { status: response.status, etag, bodies, headers };
  }

  return {
    /** A page's GET or HEAD: its key, the path and its selecting parameters sorted; else null. */
    route(method: string | undefined, url: string): { key: string } | null {
      if (method !== "GET" && method !== "HEAD") return null;
      const mark = url.indexOf("?");
      const path = mark === -1 ? url : url.slice(0, mark);
      if (!paths.has(path)) return null;
      if (mark === -1) return { key: path };
      const params = new URLSearchParams(url.slice(mark + 1));
      const selecting = variants[path] ?? {};
      const kept: string[] = [];
      for (const name of new Set(params.keys())) {
        if (privates.has(name) || name === "_data") return null; // one visitor's own, or Remix's data request
        const value = params.get(name)!;
        if (selecting[name]?.includes(value)) kept.push(`${name}=${encodeURIComponent(value)}`);
      }
      return { key: kept.length ? `${path}?${kept.sort().join("&")}` : path };
    },

    /** A hit at once, fresh or stale (rendered again in the background): no promise. A miss: the one render every request joins. */
    lookup(key: string): Page | Promise<Page | undefined> | undefined {
      const page = kept.get(key);
      if (page === undefined) return unkept.has(key) ? undefined : kept.fetch(key);
      if (kept.getRemainingTTL(key) <= 0) void kept.fetch(key).catch(() => undefined);
      return page;
    },

    send(req: IncomingMessage, res: ServerResponse, page: Page, extraHeaders: readonly string[] = []): void {
      const coding = codings.memo(req.headers["accept-encoding"] ?? "");
      const headers = extraHeaders.length ? [...page.headers[coding], ...extraHeaders] : page.headers[coding];
      if (req.headers["if-none-match"] !== undefined && fresh(req.headers, { etag: etagOf(page.etag, coding) }))
        return void res.writeHead(304, withoutBodyHeaders(headers)).end();
      res.writeHead(page.status, headers).end(req.method === "HEAD" ? undefined : page.bodies[coding]);
    },

    get size() {
      return kept.size;
    },
  };
}

/** A 304 repeats the validator and caching headers, not the body's. */
function withoutBodyHeaders(flat: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) if (flat[i] !== "content-length" && flat[i] !== "content-type") out.push(flat[i]!, flat[i + 1]!);
  return out;
}

export type PageCache = ReturnType<typeof createPageCache>;

/**
 * Public pages, rendered once and kept as bytes (decision 0014): a page whose own Cache-Control
 * lets a shared cache keep it is stored as identity, brotli-11 and gzip-9 bodies with strong ETags
 * and its headers built, under its path and the query parameters that select what it shows. A miss
 * renders the key's URL itself, once however many ask, with no visitor's headers: a Host, a cookie
 * or a campaign parameter never reaches what others get.
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
/** negotiator ≥ 1 breaks ties by `preferred` (its types predate the option): brotli first. */
type Negotiating = { encoding(available: Coding[], options: { preferred: Coding[] }): Coding | undefined };
/** Each coding is a representation of its own, with its own strong validator. */
const etagOf = (etag: string, coding: Coding) => (coding === "identity" ? etag : `${etag.slice(0, -1)}-${coding}"`);

/** A kept page: per coding, the body and the header list for writeHead (flat: name, value, …). */
export interface Page {
  status: number;
  etag: string;
  bodies: Record<Coding, Buffer>;
  headers: Record<Coding, string[]>;
}

/** `privateParams`: a request carrying any is never answered from here; `commonHeaders`: every answer's, a page's own win. */
export interface PageCacheOptions {
  pagePaths: Iterable<string>;
  variants: PageVariants;
  privateParams: readonly string[];
  render: (key: string) => Promise<Response>;
  commonHeaders: readonly (readonly [string, string])[];
  maxEntries?: number;
}

/** Seconds a shared cache may keep this answer fresh (its own Cache-Control: s-maxage, else max-age), or 0. */
export function sharedTtl(key: string, response: { status: number; headers: Headers }): number {
  const headers = Object.fromEntries(response.headers);
  if (response.status !== 200 || "set-cookie" in headers) return 0;
  const policy = new CachePolicy({ method: "GET", url: key, headers: {} }, { status: response.status, headers }, { shared: true });
  return policy.storable() ? policy.maxAge() : 0;
}

export function createPageCache({ pagePaths, variants, privateParams, render, commonHeaders, maxEntries = 100 }: PageCacheOptions) {
  const paths = new Set(pagePaths);
  const privates = new Set(privateParams);
  // Each distinct Accept-Encoding is parsed once: browsers send a handful of them.
  const codings = new LRUCache<string, Coding>({
    max: 200,
    memoMethod: (accept) => (new Negotiator({ headers: { "accept-encoding": accept } }) as Negotiating).encoding(CODINGS, { preferred: CODINGS }) ?? "identity",
  });
  // Keys whose answer was not one to keep (a 404 for an estimate with a choice missing): for a
  // minute they go straight to Remix, so such a request costs one render, not two.
  const unkept = new LRUCache<string, true>({ max: maxEntries, ttl: 60_000 });
  const kept = new LRUCache<string, Page>({
    max: maxEntries,
    // Served stale (the pages say stale-while-revalidate) while a fresh render replaces it.
    allowStale: true,
    noDeleteOnStaleGet: true,
    allowStaleOnFetchRejection: true,
    fetchMethod: async (key, _stale, { options }) => {
      const response = await render(key);
      const body = Buffer.from(await response.arrayBuffer());
      const ttl = sharedTtl(key, response);
      if (ttl === 0) {
        unkept.set(key, true);
        return undefined; // not for keeping: the request goes on to Remix as it is
      }
      options.ttl = ttl * 1000;
      return keep(response, body);
    },
  });

  async function keep(response: Response, identity: Buffer): Promise<Page> {
    const [br, gz] = await Promise.all([
      brotli(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
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
    /** The key of a GET or HEAD for a page (its path and the parameters that select what it shows, sorted), or null: not ours to answer. */
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

    /**
     * The kept page at once, fresh or stale (a stale one is rendered again in the background), so a
     * hit costs no promise; on a miss, the render that keeps it (joined by every request for the
     * key), undefined when the answer is not one to keep.
     */
    lookup(key: string): Page | Promise<Page | undefined> | undefined {
      const page = kept.get(key);
      if (page === undefined) return unkept.has(key) ? undefined : kept.fetch(key);
      if (kept.getRemainingTTL(key) <= 0) void kept.fetch(key).catch(() => undefined);
      return page;
    },

    /** Sends a kept page: 304 when the client's copy is current, no body for HEAD. */
    send(req: IncomingMessage, res: ServerResponse, page: Page, extraHeaders: readonly string[] = []): void {
      const coding = codings.memo(req.headers["accept-encoding"] ?? "");
      const headers = extraHeaders.length ? [...page.headers[coding], ...extraHeaders] : page.headers[coding];
      if (req.headers["if-none-match"] !== undefined && fresh(req.headers, { etag: etagOf(page.etag, coding) })) {
        res.writeHead(304, withoutBodyHeaders(headers));
        return void res.end();
      }
      res.writeHead(page.status, headers);
      if (req.method === "HEAD") res.end();
      else res.end(page.bodies[coding]);
    },

    get size() {
      return kept.size;
    },
  };
}

/** A 304 repeats the validator and caching headers, not the body's length or type. */
function withoutBodyHeaders(flat: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) if (flat[i] !== "content-length" && flat[i] !== "content-type") out.push(flat[i]!, flat[i + 1]!);
  return out;
}

export type PageCache = ReturnType<typeof createPageCache>;

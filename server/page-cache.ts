/**
 * A small shared cache for documents, in front of Remix: a page that tells shared caches they may
 * keep it (`public, s-maxage=…`) is rendered once per URL and then answered from memory. Each
 * answer still gets its own CSP nonce: entry.server hands over each page as the pieces around its
 * nonce, and every answer from here joins them with the request's own.
 */
import type { RenderedPage } from "~/context";

/** Query parameters that only select what a page shows (home tabs, /work filter). */
const SELECTING_PARAMS = new Set(["service", "category"]);

interface Page {
  status: number;
  headers: [string, string][];
  pieces: Buffer[];
  expires: number;
}

export interface CachedAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

function fill(pieces: Buffer[], nonce: string): Buffer {
  const between = Buffer.from(nonce, "latin1");
  return Buffer.concat(pieces.flatMap((piece, i) => (i === 0 ? [piece] : [between, piece])));
}

/** Seconds a shared cache may keep this answer, or 0 when it must not. */
function sharedMaxAge(response: { status: number; headers: Headers }): number {
  const cacheControl = response.headers.get("cache-control") ?? "";
  const sMaxAge = /(?:^|,)\s*s-maxage=(\d+)/i.exec(cacheControl)?.[1];
  const shareable = /(?:^|,)\s*public\s*(?:,|$)/i.test(cacheControl) && !/private|no-store|no-cache/i.test(cacheControl);
  const html = response.headers.get("content-type")?.startsWith("text/html");
  if (response.status !== 200 || !html || !shareable || !sMaxAge || response.headers.has("set-cookie")) return 0;
  return Number(sMaxAge);
}

export function createPageCache({ maxEntries = 100, now = Date.now } = {}) {
  const pages = new Map<string, Page>();

  return {
    /** The key of a GET or HEAD the cache may answer (path and selecting parameters), else null. */
    keyFor(method: string, url: string): string | null {
      if (method !== "GET" && method !== "HEAD") return null;
      const query = url.indexOf("?");
      if (query !== -1) for (const name of new URLSearchParams(url.slice(query)).keys()) if (!SELECTING_PARAMS.has(name)) return null;
      return url;
    },

    get(key: string, nonce: string): CachedAnswer | undefined {
      const page = pages.get(key);
      if (!page) return undefined;
      pages.delete(key);
      if (page.expires <= now()) return undefined;
      pages.set(key, page); // most recently used goes last
      return { status: page.status, headers: page.headers, body: fill(page.pieces, nonce) };
    },

    /** Keeps a rendered page (its text as the pieces around each nonce) if its headers allow. */
    put(key: string, page: RenderedPage): void {
      const maxAge = sharedMaxAge(page);
      if (maxAge === 0) return;
      const headers = [...page.headers].filter(([name]) => name !== "content-length");
      const pieces = page.pieces.map((piece) => Buffer.from(piece, "utf8"));
      pages.delete(key);
      pages.set(key, { status: page.status, headers, pieces, expires: now() + maxAge * 1000 });
      if (pages.size > maxEntries) pages.delete(pages.keys().next().value!);
    },

    get size() {
      return pages.size;
    },
  };
}

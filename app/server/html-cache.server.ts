/**
 * Rendered documents kept in memory, so a page that is the same for every visitor is rendered by
 * React once per URL instead of once per request (docs/decisions/0006-html-cache.md).
 *
 * The CSP nonce stays per request: a page is rendered with NONCE_PLACEHOLDER where the nonce goes,
 * stored as the pieces around it, and every response joins those pieces with its own fresh nonce.
 * The placeholder is 16 random bytes drawn when the process starts, so no page text can contain it.
 *
 * Only documents that depend on nothing but their URL are stored (see documentCacheKey): GET or
 * HEAD, status 200, no matched route with a loader (a loader may read cookies or headers), and no
 * query parameter beyond the ones the pages read to show a selection. Entries expire after `ttlMs`
 * (a page may print the date) and the least recently used go first once `maxEntries` is reached.
 */
import { randomBytes } from "node:crypto";
import type { EntryContext } from "@remix-run/node";

export const NONCE_PLACEHOLDER = randomBytes(16).toString("base64");

/**
 * Query parameters that select what a page shows and nothing else: `?service=` (home page tabs)
 * and `?category=` (/work filter). Anything else, `?sent=` after a form post included, is rendered
 * afresh every time.
 */
export const CACHEABLE_PARAMS: ReadonlySet<string> = new Set(["service", "category"]);

/** The cache key (the full URL) when this document may be stored and shared, otherwise null. */
export function documentCacheKey(request: Request, status: number, context: Pick<EntryContext, "manifest" | "staticHandlerContext">): string | null {
  if ((request.method !== "GET" && request.method !== "HEAD") || status !== 200) return null;
  const url = new URL(request.url);
  for (const name of url.searchParams.keys()) if (!CACHEABLE_PARAMS.has(name)) return null;
  for (const match of context.staticHandlerContext.matches) {
    if (context.manifest.routes[match.route.id]?.hasLoader) return null;
  }
  return url.href;
}

interface Entry {
  /** The document's UTF-8 bytes, split at each NONCE_PLACEHOLDER. */
  pieces: Buffer[];
  expires: number;
}

/** The pieces with `nonce` between each two: the bytes of the document for one response. */
function fill(pieces: Buffer[], nonce: string): Uint8Array<ArrayBuffer> {
  const between = Buffer.from(nonce, "latin1");
  const parts: Buffer[] = [];
  pieces.forEach((piece, i) => {
    if (i > 0) parts.push(between);
    parts.push(piece);
  });
  // Buffer.concat allocates from a plain (never shared) ArrayBuffer.
  return Buffer.concat(parts) as Uint8Array<ArrayBuffer>;
}

export class HtmlCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: { maxEntries: number; ttlMs: number; now?: () => number }) {}

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The stored document (UTF-8) with `nonce` in every place the placeholder was, or undefined. */
  get(key: string, nonce: string): Uint8Array<ArrayBuffer> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.now()) return undefined;
    this.entries.set(key, entry); // most recently used goes last
    return fill(entry.pieces, nonce);
  }

  /** Stores `html` (rendered with NONCE_PLACEHOLDER) and returns it (UTF-8) with `nonce` filled in. */
  set(key: string, html: string, nonce: string): Uint8Array<ArrayBuffer> {
    const pieces = html.split(NONCE_PLACEHOLDER).map((piece) => Buffer.from(piece, "utf8"));
    this.entries.delete(key);
    this.entries.set(key, { pieces, expires: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return fill(pieces, nonce);
  }
}

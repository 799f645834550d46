/**
 * Cache-Control values for documents, and the `headers` export routes share (isomorphic: no
 * server-only imports, so a route module may import it freely).
 *
 *   export const headers: HeadersFunction = pageHeaders;
 *
 * Export it from EVERY route that has an action (and from root): Remix uses the leaf route's
 * headers() result, and a leaf without a `headers` export inherits its parent's, which is computed
 * with that parent's (empty) actionHeaders and would mark the answer to a post as public.
 *
 * headers() never sees the status code, and for a 404 (no route matched) or an error thrown in a
 * route without a loader Remix passes no errorHeaders: measured on a real build, GET /missing came
 * back 404 with the public page policy. So entry.server must also call
 * `enforceDocumentCachePolicy(request, responseStatusCode, responseHeaders)`, which has the last
 * word: only a 200 answer to GET/HEAD may stay public.
 */

export const cacheHeaders = {
  /** Pages: shared caches may keep them 5 minutes and serve stale while refreshing; browsers revalidate. */
  page: "public, max-age=0, s-maxage=300, stale-while-revalidate=86400",
  /** Answers to posts and error pages: they may echo what a visitor typed. */
  private: "private, no-store",
} as const;

export interface PageHeadersArgs {
  actionHeaders: Headers;
  loaderHeaders: Headers;
  parentHeaders?: Headers;
  errorHeaders?: Headers | undefined;
}

function isEmpty(headers: Headers): boolean {
  return headers.keys().next().done === true;
}

function isPrivate(cacheControl: string | null): boolean {
  return cacheControl !== null && /(^|[\s,])(private|no-store)([\s,=]|$)/i.test(cacheControl);
}

/**
 * "private, no-store" when the document answers a post (its route's action ran, so
 * actionHeaders is non-empty: Remix always gives action data a Content-Type), renders an error
 * boundary, or a parent already chose private; otherwise the loader's own Cache-Control if it set
 * one; otherwise the public page policy. An action's Retry-After (a 429) goes out with the page.
 */
export function pageHeaders({ actionHeaders, loaderHeaders, parentHeaders, errorHeaders }: PageHeadersArgs): Record<string, string> {
  const retryAfter = actionHeaders.get("retry-after");
  if (errorHeaders !== undefined || !isEmpty(actionHeaders) || isPrivate(parentHeaders?.get("cache-control") ?? null)) {
    return { "Cache-Control": cacheHeaders.private, ...(retryAfter ? { "Retry-After": retryAfter } : {}) };
  }
  return { "Cache-Control": loaderHeaders.get("cache-control") ?? cacheHeaders.page };
}

/**
 * Query parameters that make a GET the answer to one visitor's own action: `?sent=` is where a
 * successful form post redirects (303) to show "thank you". Such a page is "private, no-store"
 * like the post itself: a shared cache must not hand one visitor's confirmation to the next.
 * Other parameters (`?service=`, `?category=`, campaign tags) only select public content.
 */
export const PRIVATE_QUERY_PARAMS: readonly string[] = ["sent"];

/**
 * Last word on a document's Cache-Control, for entry.server's handleRequest: anything but a 200
 * answer to GET/HEAD (posts, 404s, error pages), and any GET carrying one of
 * PRIVATE_QUERY_PARAMS, becomes "private, no-store", whatever the routes said. Other successful
 * GETs keep what the routes' headers() chose.
 */
export function enforceDocumentCachePolicy(request: Request, status: number, headers: Headers): Headers {
  const method = request.method.toUpperCase();
  if ((method !== "GET" && method !== "HEAD") || status !== 200 || hasPrivateQuery(request.url)) {
    headers.set("Cache-Control", cacheHeaders.private);
  }
  return headers;
}

function hasPrivateQuery(url: string): boolean {
  if (!url.includes("?")) return false;
  const params = new URL(url).searchParams;
  return PRIVATE_QUERY_PARAMS.some((name) => params.has(name));
}

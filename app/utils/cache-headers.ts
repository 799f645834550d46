import CachePolicy from "http-cache-semantics";

/**
 * Cache-Control for documents. Root and every route with an action export `headers = pageHeaders`
 * (a leaf without one inherits its parent's, computed without the action, and would call the answer
 * to a post public). headers() never sees the status code, so entry.server has the last word with
 * `enforceDocumentCachePolicy`: only a 200 answer to GET/HEAD may stay public.
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

/** A Cache-Control a shared cache may not keep (private, no-store, …), read by http-cache-semantics (which takes directives in lower case). */
function isPrivate(cacheControl: string | null): boolean {
  if (cacheControl === null) return false;
  return !new CachePolicy({ headers: {} }, { status: 200, headers: { "cache-control": cacheControl.toLowerCase() } }, { shared: true }).storable();
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
 * Query parameters that make a page one visitor's own: `?sent=` (with `receipt=`) is where a
 * successful post redirects to say thank you, `?draft=` a calculator step without JavaScript, and
 * `?contact=` the contact form's mistakes without it.
 * A request carrying any of them is rendered for that request, goes out "private, no-store", and
 * is never answered from or kept in the server's page cache (server/page-cache.ts). The one list
 * both read: add a per-visitor parameter here.
 */
export const PRIVATE_QUERY_PARAMS: readonly string[] = ["sent", "receipt", "draft", "contact"];

/** Anything but a 200 answer to GET/HEAD, and any `?sent=` page, becomes "private, no-store". */
export function enforceDocumentCachePolicy(request: Request, status: number, headers: Headers): Headers {
  const method = request.method.toUpperCase();
  if ((method !== "GET" && method !== "HEAD") || status !== 200 || hasPrivateQuery(request.url)) {
    headers.set("Cache-Control", cacheHeaders.private);
  }
  return headers;
}

/** Whether the URL carries a per-visitor parameter (PRIVATE_QUERY_PARAMS). */
export function hasPrivateQuery(url: string): boolean {
  if (!url.includes("?")) return false;
  const params = new URL(url).searchParams;
  return PRIVATE_QUERY_PARAMS.some((name) => params.has(name));
}

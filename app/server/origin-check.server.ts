/**
 * Cross-site request refusal for state-changing requests (OWASP CSRF cheat sheet: Fetch Metadata,
 * then Origin/Referer verification). Call it in every route action (POST) before reading the body:
 *
 *   if (isCrossSite(request, { trustProxy: cfg.trustProxy, allowedOrigins: [cfg.siteUrl] }))
 *     throw new Response("Cross-site form posts are not accepted", { status: 403 });
 *
 * Do NOT apply it to GET: arriving from a search result is a cross-site navigation.
 *
 * Decision order:
 * 1. Sec-Fetch-Site present (every current browser sends it on HTTPS and localhost):
 *    "same-origin" and "none" (typed/bookmarked, e.g. a resubmitted form) are allowed;
 *    "same-site" (a sibling subdomain), "cross-site" and any unknown value are refused.
 * 2. Otherwise the Origin header, or when absent the origin of the Referer, must equal our own
 *    origin. Origin "null" (sandboxed frames, opaque contexts) and unparseable values are refused.
 * 3. Neither header: allowed. That is what curl, scripts and uptime checks send, and browsers that
 *    omit all three are ones that predate CSRF-relevant behaviour or strip headers on purpose
 *    (Referrer-Policy: no-referrer from an old browser). Such clients cannot be told apart from a
 *    legitimate non-browser client anyway; they are handled by the rate limits, the honeypot and
 *    validation, not by this check.
 *
 * "Our own origin" is any of: request.url's origin; when trustProxy, the origin rebuilt from the
 * first X-Forwarded-Proto and X-Forwarded-Host values (the outermost proxy's view, i.e. what the
 * browser used); and `allowedOrigins` (e.g. SITE_URL). Note remix-serve builds request.url as
 * `http://<Host header>` (it does not enable Express "trust proxy"), so behind a TLS proxy
 * without TRUST_PROXY the URL origin is http:// while the browser's Origin is https:// - set
 * TRUST_PROXY or SITE_URL there, or old browsers without Sec-Fetch-Site get refused. Trusting
 * forwarded headers here is safe: a cross-site page cannot make a browser send X-Forwarded-*
 * (custom headers need a CORS preflight we never grant).
 */

export interface OriginCheckOptions {
  trustProxy: boolean;
  /** Extra origins to accept, e.g. the canonical SITE_URL. Undefined entries are ignored. */
  allowedOrigins?: ReadonlyArray<string | undefined>;
}

function originOf(value: string): string | undefined {
  try {
    const u = new URL(value);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

function firstValue(value: string | null): string | undefined {
  const first = value?.split(",")[0]?.trim();
  return first ? first : undefined;
}

/** The origins this request may legitimately come from. */
export function ownOrigins(request: Request, opts: OriginCheckOptions): Set<string> {
  const origins = new Set<string>();
  const urlOrigin = originOf(request.url);
  if (urlOrigin) origins.add(urlOrigin);
  if (opts.trustProxy) {
    const proto = firstValue(request.headers.get("x-forwarded-proto"))?.toLowerCase();
    const host = firstValue(request.headers.get("x-forwarded-host"));
    if (proto || host) {
      const base = urlOrigin ? new URL(urlOrigin) : undefined;
      const scheme = proto === "http" || proto === "https" ? proto : base?.protocol.slice(0, -1);
      const authority = host ?? base?.host;
      if (scheme && authority && !/[/?#@\\\s]/.test(authority)) {
        const forwarded = originOf(`${scheme}://${authority}`);
        if (forwarded) origins.add(forwarded);
      }
    }
  }
  for (const extra of opts.allowedOrigins ?? []) {
    const o = extra ? originOf(extra) : undefined;
    if (o) origins.add(o);
  }
  return origins;
}

/** True when the request must be refused as cross-site (see the module comment). */
export function isCrossSite(request: Request, opts: OriginCheckOptions): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    const v = site.trim().toLowerCase();
    return !(v === "same-origin" || v === "none");
  }

  const origin = request.headers.get("origin");
  const referer = request.headers.get("referer");
  let claimed: string | undefined;
  if (origin !== null) {
    if (origin.trim().toLowerCase() === "null") return true;
    claimed = originOf(origin.trim());
    if (!claimed) return true;
  } else if (referer !== null) {
    claimed = originOf(referer.trim());
    if (!claimed) return true;
  } else {
    return false; // non-browser client: see the module comment
  }
  return !ownOrigins(request, opts).has(claimed);
}

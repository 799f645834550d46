/**
 * Security headers for document responses (set them in entry.server's handleRequest, and for
 * resource routes where it matters).
 *
 * CSP and Remix (classic compiler, v3_singleFetch off), checked against @remix-run/react 2.17:
 * - <Scripts nonce={nonce}> puts the nonce on both inline scripts (window.__remixContext and the
 *   module script importing the route modules) and on deferred-data scripts.
 * - <ScrollRestoration nonce={nonce}> puts it on its inline script.
 * - <LiveReload> is development only; do not send this CSP in development (its websocket to
 *   another port breaks connect-src 'self'), or relax connect-src there.
 * - <RemixServer nonce> only matters for single fetch (off here) - pass it anyway, and pass
 *   `nonce` to React's renderToPipeableStream so React's own streaming <script>s ($RC, used when a
 *   Suspense boundary resolves late) are allowed too.
 * - The nonce must reach root.tsx's <Scripts>/<ScrollRestoration>: remix-serve has no load
 *   context, so wrap <RemixServer> in a React context provider in entry.server.
 * - Remix's DEFAULT root error boundary renders an inline <script> without a nonce and inline
 *   style="" attributes: define a root ErrorBoundary of our own.
 * - `style-src 'self'` blocks every style="" attribute in server-rendered HTML (React's style={{}}
 *   props!) with a console error; styles set from JS through CSSOM are allowed. Use classes (the
 *   honeypot's visually-hidden style too).
 * - `<script type="application/ld+json">` (Remix meta "script:ld+json") is a data block, not run,
 *   so it needs no nonce.
 * - Nonce and shared caching: a page served with `s-maxage` carries the same nonce to every
 *   visitor until the cache refreshes. The header and the HTML stay consistent (they are cached
 *   together), so nothing breaks, but the nonce is then not secret; acceptable here because these
 *   pages reflect no visitor input, and worth knowing before any page does.
 */
import { randomBytes } from "node:crypto";

export interface SecurityHeaderOptions {
  nonce: string;
  https: boolean;
}

const NONCE_BYTES = 16;
const POOL_NONCES = 256;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * 16 random bytes, base64: a fresh nonce per response. The bytes come from a pool filled 4 KiB at
 * a time by the CSPRNG and each byte is used once, so every nonce is as unpredictable as its own
 * randomBytes(16) call; one call per 256 responses instead of one per response (issue 5 profile).
 */
export function createNonce(): string {
  if (poolOffset + NONCE_BYTES > pool.length) {
    pool = randomBytes(NONCE_BYTES * POOL_NONCES);
    poolOffset = 0;
  }
  const nonce = pool.toString("base64", poolOffset, poolOffset + NONCE_BYTES);
  poolOffset += NONCE_BYTES;
  return nonce;
}

const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "browsing-topics=()",
  "camera=()",
  "display-capture=()",
  "geolocation=()",
  "gyroscope=()",
  "hid=()",
  "interest-cohort=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "serial=()",
  "usb=()",
].join(", ");

export function contentSecurityPolicy(nonce: string): string {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(nonce)) {
    // A nonce with a quote or semicolon would let a caller rewrite the policy.
    throw new Error("CSP nonce must be base64");
  }
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

export function securityHeaders({ nonce, https }: SecurityHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Security-Policy": contentSecurityPolicy(nonce),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Cross-Origin-Opener-Policy": "same-origin",
    // Legacy twin of frame-ancestors 'none' for browsers without CSP level 2.
    "X-Frame-Options": "DENY",
  };
  if (https) {
    // Only over HTTPS: browsers ignore it on plain HTTP, and sending it from a dev server on
    // localhost would pin localhost to HTTPS.
    headers["Strict-Transport-Security"] = "max-age=63072000; includeSubDomains";
  }
  return headers;
}

/** Set (overwrite) the security headers on `headers`. */
export function applySecurityHeaders(headers: Headers, opts: SecurityHeaderOptions): Headers {
  for (const [name, value] of Object.entries(securityHeaders(opts))) {
    headers.set(name, value);
  }
  return headers;
}

/** First value of a possibly comma-joined forwarded header, lower-cased and trimmed. */
function firstForwarded(value: string | null): string | undefined {
  const first = value?.split(",")[0]?.trim().toLowerCase();
  return first ? first : undefined;
}

/**
 * Whether the browser reached us over HTTPS: request.url's scheme, or (only when we sit behind a
 * proxy we trust) X-Forwarded-Proto. remix-serve builds request.url with req.protocol and does not
 * enable Express's "trust proxy", so behind a TLS-terminating proxy request.url is http://.
 * With several proxies the FIRST (outermost) X-Forwarded-Proto value is the one the browser used;
 * a forged value can at most add an HSTS header that browsers ignore over plain HTTP.
 */
export function isHttps(request: Request, trustProxy: boolean): boolean {
  let protocol: string;
  try {
    protocol = new URL(request.url).protocol;
  } catch {
    return false;
  }
  if (protocol === "https:") return true;
  if (trustProxy) return firstForwarded(request.headers.get("x-forwarded-proto")) === "https";
  return false;
}

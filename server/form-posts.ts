/**
 * Every post passes here before Remix, so no action can skip a rule: the cross-site check, the per-client limit, the
 * body cap, the honeypot. What survives is `res.locals.form`, the body remix-handler.ts hands an action.
 */
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import getRawBody from "raw-body";
import { messages } from "~/content/messages";
import { HONEYPOT_FIELD } from "~/forms/honeypot";
import { stripInvisible } from "~/forms/limits";
import { FUNNEL_PATH } from "~/funnel/visit";
import { sendPlain } from "./headers";
import type { Logger } from "./log";
import { clientKey, type RateLimits } from "./rate-limits";

export const MAX_FORM_BYTES = 64 * 1024;

export type CheckedPost = { fields: Record<string, string>; bot: boolean; client: string };

const REFUSALS = {
  400: "That form could not be read.",
  403: "Forms on this site can only be sent from this site.",
  413: "That form was larger than we accept.",
  415: "That was not a form we can read.",
  429: messages.rateLimited,
} as const;

/** Undefined for "null" and for junk. */
function hostOf(value: string): string | undefined {
  const url = URL.parse(value);
  return url?.protocol === "http:" || url?.protocol === "https:" ? url.host : undefined;
}

/** X-Forwarded-Host from a trusted proxy (reject-malformed.ts drops any other), else Host. */
export const requestHost = (req: Request) => req.get("x-forwarded-host")?.split(",")[0]?.trim() || req.get("host");

/**
 * Fetch Metadata first, as Go 1.25's CrossOriginProtection does: the browser says, whatever a proxy did to Host. Without
 * it (an old browser, plain http://) the Origin, else the Referer: one of SITE_ORIGIN, or the host addressed (decision 0032).
 */
function isCrossSite(req: Request, siteOrigins: readonly string[]): boolean {
  const site = req.get("sec-fetch-site");
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  const claimed = req.get("origin") ?? req.get("referer");
  if (claimed === undefined) return false; // not a browser: left to the other rules
  const url = URL.parse(claimed);
  if (url !== null && siteOrigins.includes(url.origin)) return false;
  // Named by a trusted proxy, the scheme must match too; else only the host can be compared.
  const scheme = req.get("x-forwarded-proto") ? `${req.protocol}:` : undefined;
  return hostOf(claimed) !== requestHost(req) || (scheme !== undefined && url?.protocol !== scheme);
}

/** Refused by the host comparison alone, a post looks same-site: a proxy rewriting Host, an error to look at. */
const refusedOrigin = (req: Request) => (req.get("sec-fetch-site") === undefined ? hostOf(req.get("origin") ?? req.get("referer") ?? "") : undefined);

export type PostEvents = { refused(looks: "cross-site" | "same-site"): void; clientUnknown(): void };

/** Undefined for a trusted proxy's post that names no client: counted as a client of its own, not one bucket for all. */
function clientOf(req: Request): string | undefined {
  const proxied = (req.app.get("trust proxy fn") as (address: string, hop: number) => boolean)(req.socket.remoteAddress ?? "", 0);
  return proxied && req.get("x-forwarded-for") === undefined ? undefined : clientKey(req.ip);
}

type Options = { limits: RateLimits; log: Logger; events?: PostEvents; siteOrigins?: readonly string[] };

export function formPosts({ limits, log, events, siteOrigins = [] }: Options): RequestHandler {
  let unknownSaidAt = -Infinity;

  function refuse(req: Request, res: Response, status: keyof typeof REFUSALS, reason: string, retryAfter?: number) {
    if (status === 429) log.warn({ limit: reason, retryAfter, path: req.path }, "rate_limited");
    else if (status !== 403) log.warn({ status, reason, path: req.path }, "post_refused");
    if (retryAfter) res.set("Retry-After", String(retryAfter));
    // Remix's browser code shows an answer marked so in the error boundary.
    if (new URLSearchParams(req.url.split("?")[1]).has("_data")) res.set("X-Remix-Catch", "yes");
    // Stop reading the body: the connection closes once the answer is out.
    if (status === 413 || status === 400) res.set("Connection", "close");
    sendPlain(res, status, REFUSALS[status]);
  }

  function refuseCrossSite(req: Request, res: Response) {
    const origin = refusedOrigin(req);
    if (origin === undefined) log.warn({ status: 403, reason: "cross-site", path: req.path }, "post_refused");
    else log.error({ status: 403, origin, host: requestHost(req), path: req.path }, "post_refused_same_site");
    events?.refused(origin === undefined ? "cross-site" : "same-site");
    refuse(req, res, 403, "cross-site");
  }

  /** Logged at most once a minute, not once a post. */
  function unknownClient(): string {
    events?.clientUnknown();
    if (performance.now() - unknownSaidAt >= 60_000) {
      unknownSaidAt = performance.now();
      log.error({ header: "X-Forwarded-For", see: "docs/operations.md#behind-a-proxy" }, "proxy_client_unknown");
    }
    return `unknown:${randomUUID()}`;
  }

  return async (req, res, next) => {
    if (isCrossSite(req, siteOrigins)) return refuseCrossSite(req, res);
    const known = clientOf(req);
    const client = known ?? unknownClient();
    // The beacons have a limit of their own, so counting never costs a visitor a send.
    const limit = req.path === FUNNEL_PATH ? "funnel" : "posts";
    const wait = known === undefined ? 0 : await limits.take(limit, client);
    if (wait) return refuse(req, res, 429, limit, wait);
    if (!req.is("application/x-www-form-urlencoded")) return refuse(req, res, 415, "content type");

    let body: string;
    try {
      body = await getRawBody(req, { length: req.get("content-length"), limit: MAX_FORM_BYTES, encoding: "utf-8" });
    } catch (error) {
      const { type } = error as { type?: string };
      if (type === "request.aborted") return; // the client went away; nobody to answer
      return type === "entity.too.large" ? refuse(req, res, 413, "too large") : refuse(req, res, 400, type ?? "unreadable");
    }
    // Invisible code points go before any action sees a field. A line break is LF, as a box's maxlength counts it.
    const fields = Object.fromEntries([...new URLSearchParams(body)].map(([name, value]) => [name, stripInvisible(value.replace(/\r\n?/g, "\n"))]));
    const bot = (fields[HONEYPOT_FIELD] ?? "").trim() !== "";
    res.locals.form = { fields, bot, client } satisfies CheckedPost;
    next();
  };
}

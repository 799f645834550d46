/**
 * Every post (every method with an action) passes here before Remix sees it, so no action can
 * skip a rule: the cross-site check, the per-client post limit, the body cap and the honeypot.
 * What survives is `res.locals.form`; remix-handler.ts hands its fields to Remix as the body an
 * action reads with `request.formData()` (the body stream itself is used up here).
 */
import type { Request, RequestHandler, Response } from "express";
import getRawBody from "raw-body";
import { messages } from "~/content/messages";
import { HONEYPOT_FIELD } from "~/forms/honeypot";
import { stripInvisible } from "~/forms/lead.server";
import type { Logger } from "./log";
import { clientKey, type RateLimits } from "./rate-limits";

export const MAX_FORM_BYTES = 64 * 1024;

/** A post that passed the rules: its fields (invisible code points removed), the honeypot's verdict, the client. */
export interface CheckedPost {
  fields: Record<string, string>;
  bot: boolean;
  client: string;
}

const REFUSALS = {
  400: "That form could not be read.",
  403: "Forms on this site can only be sent from this site.",
  413: "That form was larger than we accept.",
  415: "That was not a form we can read.",
  429: messages.rateLimited,
} as const;

/** The host part of an Origin or Referer value; undefined for "null" and for junk. */
function hostOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Fetch Metadata first (OWASP): only same-origin posts and ones the visitor typed or bookmarked.
 * Then the Origin (or, without one, the Referer) must name this very host, compared exactly as
 * Remix's own check compares it, so a post that passes here never trips Remix's (a 500).
 * A client that sends neither header is not a browser and is left to the other rules.
 */
export function isCrossSite(req: Request): boolean {
  const site = req.get("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return true;
  const claimed = req.get("origin") ?? req.get("referer");
  if (claimed === undefined) return false;
  const host = req.get("x-forwarded-host")?.split(",")[0]?.trim() || req.get("host");
  return hostOf(claimed) !== host;
}

export function formPosts({ limits, log }: { limits: RateLimits; log: Logger }): RequestHandler {
  function refuse(req: Request, res: Response, status: keyof typeof REFUSALS, reason: string, retryAfter?: number) {
    if (status === 429) log.warn({ limit: reason, retryAfter, path: req.path }, "rate_limited");
    else log.warn({ status, reason, path: req.path }, "post_refused");
    if (retryAfter) res.set("Retry-After", String(retryAfter));
    // Remix's browser code shows an answer marked like this in the error boundary, with its text.
    if (new URLSearchParams(req.url.split("?")[1]).has("_data")) res.set("X-Remix-Catch", "yes");
    // Stop reading an oversized body: the connection closes once the answer is out.
    if (status === 413 || status === 400) res.set("Connection", "close");
    res.status(status).set("Cache-Control", "private, no-store").type("text/plain").send(REFUSALS[status]);
  }

  return async (req, res, next) => {
    if (isCrossSite(req)) return refuse(req, res, 403, "cross-site");
    const client = clientKey(req.ip);
    const wait = await limits.take("posts", client);
    if (wait) return refuse(req, res, 429, "posts", wait);
    if (!req.is("application/x-www-form-urlencoded")) return refuse(req, res, 415, "content type");

    let body: string;
    try {
      body = await getRawBody(req, { length: req.get("content-length"), limit: MAX_FORM_BYTES, encoding: "utf-8" });
    } catch (error) {
      const { type } = error as { type?: string };
      if (type === "request.aborted") return; // the client went away; nobody to answer
      return type === "entity.too.large" ? refuse(req, res, 413, "too large") : refuse(req, res, 400, type ?? "unreadable");
    }
    // Invisible code points go before any action sees a field (validation included). A browser
    // counts a line break as one character against a box's maxlength but posts it as CRLF (with
    // JavaScript, as LF): read as LF, a text the box accepted is never too long here.
    const fields = Object.fromEntries([...new URLSearchParams(body)].map(([name, value]) => [name, stripInvisible(value.replace(/\r\n?/g, "\n"))]));
    const bot = (fields[HONEYPOT_FIELD] ?? "").trim() !== "";
    res.locals.form = { fields, bot, client } satisfies CheckedPost;
    next();
  };
}

/**
 * Everything a form post goes through before and around its action's own validation: the
 * cross-site check, the body cap, the honeypot, and the two rate limits. Both of the home page's
 * forms use it, so each rule lives in one place.
 */
import { site } from "~/content/site";
import type { OutgoingMessage } from "~/delivery/message.server";
import { getRelay } from "~/delivery/relay-instance.server";
import { readFormBody } from "./body.server";
import { getConfig } from "./config.server";
import { isBot } from "./honeypot.server";
import { log } from "./log.server";
import { isCrossSite } from "./origin-check.server";
import { clientKey, getSharedRateLimits } from "./rate-limit.server";

export type { FormProblem as Problem } from "~/content/messages";
import type { FormProblem as Problem } from "~/content/messages";

export interface FormPost {
  fields: Record<string, FormDataEntryValue>;
  /** The invisible honeypot was filled: answer as a success, deliver nothing. */
  bot: boolean;
  /** This client is over the posts-per-minute limit: answer 429, keep what was typed. */
  overLimit: boolean;
  /** Sends a message if the client is under the delivery limit. */
  deliver(message: OutgoingMessage): Promise<"sent" | Problem>;
}

const REFUSALS = {
  403: "Forms on this site can only be sent from this site.",
  413: "That form was larger than we accept.",
  415: "That was not a form we can read.",
  400: "That form could not be read.",
} as const;

function refuse(status: keyof typeof REFUSALS, reason: string, request: Request): never {
  log("post_refused", { status, reason, path: new URL(request.url).pathname }, "warn");
  throw new Response(REFUSALS[status], { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" } });
}

/**
 * Reads a form post, or throws the 403/413/415/400 response that refuses it. Never delivers and
 * never throws anything but a Response.
 */
export async function receiveFormPost(request: Request): Promise<FormPost> {
  const config = getConfig({ formInbox: site.email });
  if (isCrossSite(request, { trustProxy: config.trustProxy, allowedOrigins: config.siteUrl ? [config.siteUrl] : [] })) {
    refuse(403, "cross-site", request);
  }
  const body = await readFormBody(request);
  if (!body.ok) refuse(body.status, body.reason, request);

  const limits = getSharedRateLimits(config);
  const key = clientKey(request, { trustProxy: config.trustProxy });
  const bot = isBot(body.form);
  if (bot) log("bot_dropped", { path: new URL(request.url).pathname });
  const post = bot ? { ok: true as const } : await limits.consumePost(key);
  if (!post.ok) log("rate_limited", { limit: "posts", retryAfterSeconds: post.retryAfterSeconds }, "warn");

  return {
    fields: Object.fromEntries(body.form),
    bot,
    overLimit: !post.ok,
    async deliver(message) {
      const allowed = await limits.consumeDelivery(key);
      if (!allowed.ok) {
        log("rate_limited", { limit: "deliveries", retryAfterSeconds: allowed.retryAfterSeconds }, "warn");
        return "rateLimited";
      }
      return (await getRelay().deliver(message)).ok ? "sent" : "failed";
    },
  };
}

/** The HTTP status for a form answer that did not deliver. */
export function problemStatus(problem: Problem): number {
  return problem === "rateLimited" ? 429 : 502;
}

/**
 * Where actions hand over leads (`context.submitLead`): the honeypot and the per-client lead quota
 * apply here, whatever the action does, then the lead goes to the relay.
 */
import type { FormPost, Lead, LeadAnswer } from "~/context";
import { createRelay } from "~/delivery/relay.server";
import type { Config } from "./config";
import type { Logger } from "./log";
import type { RateLimits } from "./rate-limits";

/** What the form-post rules (form-posts.ts) found out about a post. */
export interface CheckedPost extends FormPost {
  bot: boolean;
  client: string;
}

export async function createLeadInbox(config: Config, limits: RateLimits, log: Logger) {
  const relay = createRelay(
    { ...config.delivery, accessKey: config.delivery.accessKey },
    { log: ({ event, ...fields }) => (fields.ok ? log.info(fields, String(event)) : log.warn(fields, String(event))) },
  );
  return {
    async submit(post: CheckedPost | undefined, lead: Lead): Promise<LeadAnswer> {
      if (!post) return { ok: false, problem: "failed" };
      if (post.bot) return log.info({ kind: lead.kind }, "bot_dropped"), { ok: true };
      const wait = await limits.take("leads", post.client);
      if (wait) return log.warn({ limit: "leads", retryAfter: wait }, "rate_limited"), { ok: false, problem: "rateLimited", retryAfter: wait };
      const result = await relay.deliver(lead);
      return result.ok ? { ok: true } : { ok: false, problem: "failed" };
    },
    stats: () => ({}),
    close: async () => {},
  };
}

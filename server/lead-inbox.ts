/**
 * Where actions hand over leads (`context.submitLead`). The honeypot and the per-client lead quota
 * apply here, whatever the action does; then the lead is stored for delivery in the background.
 */
import type { Lead, LeadAnswer } from "~/context";
import type { Config } from "./config";
import type { CheckedPost } from "./form-posts";
import { createLeadQueue } from "./leads";
import { createTransport } from "./leads/transport";
import type { Logger } from "./log";
import type { RateLimits } from "./rate-limits";
import type { LeadEvents } from "./leads/types";

export function createLeadInbox(config: Config, limits: RateLimits, log: Logger, events?: LeadEvents) {
  const queue = createLeadQueue({
    dbFile: config.leadsDb,
    redisUrl: config.redisUrl,
    transport: createTransport(config.delivery),
    log,
    events,
    retentionMs: config.retentionDays * 86_400_000,
    perHour: config.leadsPerHour,
    // A claimed delivery stays this process's a little longer than one attempt may take.
    leaseMs: config.delivery.timeoutMs + 5_000,
  });
  return {
    start: () => queue.start(),
    stats: () => queue.stats(),
    close: () => queue.close(),
    async submit(post: CheckedPost | undefined, lead: Lead): Promise<LeadAnswer> {
      if (!post) return { ok: false, problem: "failed" };
      if (post.bot) return (log.info({ kind: lead.kind }, "bot_dropped"), { ok: true });
      const wait = await limits.take("leads", post.client);
      if (wait) return (log.warn({ limit: "leads", retryAfter: wait }, "rate_limited"), { ok: false, problem: "rateLimited", retryAfter: wait });
      try {
        const { id, first } = await queue.accept(lead);
        return first ? { ok: true, reference: id, first } : { ok: true, reference: id };
      } catch (error) {
        await limits.refund(post.client);
        log.error({ err: error, kind: lead.kind }, "lead_not_stored");
        return { ok: false, problem: "failed" };
      }
    },
  };
}

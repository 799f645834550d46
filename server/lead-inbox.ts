/** `context.submitLead`: the honeypot applies here, whatever the action does; a lead is stored with its address's code (decision 0031). */
import type { Lead, LeadAnswer } from "~/context";
import type { Config } from "./config";
import type { Db } from "./db";
import type { CheckedPost } from "./form-posts";
import { createLeadQueue } from "./leads/queue";
import { PER_ADDRESS } from "./leads/schedule";
import { AddressFull, moveIntoPostgres } from "./leads/store";
import { createTransport } from "./leads/transport";
import type { LeadEvents } from "./leads/types";
import type { Logger } from "./log";

export function createLeadInbox(config: Config, db: Db, log: Logger, codeOf: (client: string) => string, events?: LeadEvents) {
  const queue = createLeadQueue({
    db,
    transport: createTransport(config.delivery),
    log,
    events,
    retentionMs: config.retentionDays * 86_400_000,
    perHour: config.leadsPerHour,
    leaseMs: config.delivery.timeoutMs + 5_000,
  });
  return {
    async start() {
      // With DATABASE_URL, a data folder's SQLite store moves in first.
      const moved = await moveIntoPostgres(db, config.leadsDb);
      if (moved !== undefined) log.warn({ from: config.leadsDb, to: db.where, leads: moved }, "leads_moved_into_postgresql");
      await queue.start();
    },
    stats: () => queue.stats(),
    close: (cut?: AbortSignal) => queue.close(cut),
    /** `device`: the sending browser's class, kept with the lead's outcome (decision 0053). */
    async submit(post: CheckedPost | undefined, lead: Lead, device?: string): Promise<LeadAnswer> {
      if (!post) return { ok: false, problem: "failed" };
      if (post.bot) {
        log.info({ kind: lead.kind }, "bot_dropped");
        return { ok: true };
      }
      try {
        const { id, first } = await queue.accept(lead, { group: codeOf(post.client), device });
        return { ok: true, reference: id, first };
      } catch (error) {
        if (error instanceof AddressFull) {
          // At its address's pace a held lead goes every two minutes, freeing a place.
          const retryAfter = PER_ADDRESS.windowMs / PER_ADDRESS.letThrough / 1000;
          log.warn({ limit: "leads", heldPerAddress: PER_ADDRESS.held, retryAfter }, "rate_limited");
          return { ok: false, problem: "rateLimited", retryAfter };
        }
        log.error({ err: error, kind: lead.kind }, "lead_not_stored");
        return { ok: false, problem: "failed" };
      }
    },
  };
}

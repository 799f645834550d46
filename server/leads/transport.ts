/** One delivery attempt. Success is strict where the service has a success answer (a 200 HTML page took nothing); a webhook's is any 2xx. */
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { sourceParts } from "~/funnel/source";
import type { Config } from "../config";
import { answerFields, codeOf, messageText, post, retryable, unanswered } from "./send";
import type { DeliveryOutcome, StoredLead, Transport } from "./types";
import { createZohoTransport } from "./zoho-crm";

export type TransportConfig = Config["delivery"];

const PROVIDERS = {
  web3forms: {
    payload: (lead: StoredLead, c: TransportConfig) => ({
      access_key: c.accessKey,
      subject: lead.subject,
      to: c.inbox,
      from_name: lead.fromName,
      message: messageText(lead),
      replyto: lead.replyTo,
    }),
    accepted: (answer: Record<string, unknown>) => answer.success === true,
  },
  formspree: {
    payload: (lead: StoredLead) => ({ email: lead.replyTo, _subject: lead.subject, message: messageText(lead), name: lead.fromName }),
    accepted: (answer: Record<string, unknown>) => answer.ok === true,
  },
  webhook: {
    payload: (lead: StoredLead) => ({
      subject: lead.subject,
      from_name: lead.fromName,
      reply_to: lead.replyTo,
      message: messageText(lead),
      source: lead.source ? sourceParts(lead.source) : null,
    }),
    // The reference as the key a receiver drops a second send by (decision 0033).
    headers: (c: TransportConfig, lead: StoredLead): Record<string, string> => ({ Authorization: `Bearer ${c.accessKey}`, "Idempotency-Key": lead.id }),
    accepted: () => true,
  },
};

export function createTransport(config: TransportConfig): Transport {
  if (config.provider === "outbox") return outbox(config);
  if (config.provider === "zoho-crm") return createZohoTransport(config.zoho!, config.timeoutMs);
  const provider = PROVIDERS[config.provider];
  return {
    name: config.provider,
    async deliver(lead, stop) {
      const headers = { "Content-Type": "application/json", Accept: "application/json", ...("headers" in provider ? provider.headers(config, lead) : {}) };
      const answer = await post(config.endpoint, headers, JSON.stringify(provider.payload(lead, config)), config.timeoutMs, stop);
      if (answer.kind !== "response") return unanswered(answer);
      const { status, body } = answer;
      if (status < 200 || status > 299) return { ok: false, retry: status < 400 || retryable(status), reason: "http", status };
      return provider.accepted(answerFields(body)) ? { ok: true, status } : { ok: false, retry: true, reason: "rejected", status };
    },
  };
}

/** Fsync'd before it counts; one that fails half way (a full disk) is cut off, so the next never lands on a torn line. 0600: visitors' words. */
export async function appendLine(file: string, line: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, "a+", 0o600);
  try {
    const { size } = await handle.stat();
    // A torn line a crash left (the file's last byte no newline) is ended first.
    const torn = size > 0 && (await handle.read(Buffer.alloc(1), 0, 1, size - 1)).buffer[0] !== 0x0a;
    const text = torn ? `\n${line}` : line;
    try {
      await handle.appendFile(text, "utf8");
      await handle.datasync();
    } catch (error) {
      await handle.truncate(size).catch(() => undefined);
      throw error;
    }
  } finally {
    await handle.close();
  }
}

/** One append at a time, so lines never interleave. */
function outbox(config: TransportConfig): Transport {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: "outbox",
    async deliver(lead): Promise<DeliveryOutcome> {
      const line = `${JSON.stringify({ id: lead.id, at: new Date(lead.acceptedAt).toISOString(), subject: lead.subject, to: config.inbox, from_name: lead.fromName, reply_to: lead.replyTo, message: messageText(lead), source: lead.source ? sourceParts(lead.source) : null })}\n`;
      const write = queue.then(() => appendLine(config.outboxFile, line));
      queue = write.catch(() => undefined);
      return write.then(
        (): DeliveryOutcome => ({ ok: true }),
        (error: unknown): DeliveryOutcome => ({ ok: false, retry: true, reason: "outbox", cause: codeOf(error) }),
      );
    },
  };
}

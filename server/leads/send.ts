/** What every transport shares: the message the agency reads, one POST with a deadline, how an answer is read. */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { sourceWords } from "~/funnel/source";
import { causeOf } from "../log";
import type { DeliveryOutcome, StoredLead } from "./types";

/** The text the agency receives: what was typed, a transport's `notes`, the source in words, the reference last (a duplicate shows). */
export function messageText(lead: StoredLead, notes: readonly string[] = []): string {
  return [lead.text, ...notes, ...(lead.source ? [sourceWords(lead.source)] : []), `Reference: ${lead.id}`].join("\n\n");
}

export const codeOf = (error: unknown) => causeOf(error).code?.toString();

export type Answer = { kind: "response"; status: number; body: string } | { kind: "timeout" } | { kind: "stopped" } | { kind: "error"; error: unknown };

/** No answer (a timeout, the stop, a network error by its code): retried. */
export function unanswered(answer: Exclude<Answer, { kind: "response" }>): Extract<DeliveryOutcome, { ok: false }> {
  if (answer.kind === "error") return { ok: false, retry: true, reason: "network", cause: codeOf(answer.error) };
  return { ok: false, retry: true, reason: answer.kind };
}

/** The service busy, slow or down; any other 4xx refuses the lead for good (a wrong key, a bad payload). */
export const retryable = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

export const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});

export function answerFields(body: string): Record<string, unknown> {
  try {
    return fieldsOf(JSON.parse(body));
  } catch {
    return {};
  }
}

/** A read (Zoho CRM's outcomes), with the same deadline. */
export const get = (url: string, headers: Record<string, string>, timeoutMs: number, stop?: AbortSignal) => post(url, headers, "", timeoutMs, stop, "GET");

/** A form service answers with a few hundred bytes: more is read and dropped. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * One deadline for the whole exchange, a stalled body included. node:http, not fetch (transport.test.ts): fetch refuses
 * the ports the Fetch standard bars, names a hang-up UND_ERR_SOCKET, and its timeout drops an answer that came during a pause.
 */
export function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, stop?: AbortSignal, method = "POST"): Promise<Answer> {
  if (stop?.aborted) return Promise.resolve({ kind: "stopped" });
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = target.protocol === "https:" ? httpsRequest : httpRequest;
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop?.removeEventListener("abort", stopped);
      resolve(answer);
    };
    const giveUp = (answer: Answer) => {
      if (settled) return;
      settle(answer);
      req.destroy();
    };
    const stopped = () => giveUp({ kind: "stopped" });
    const req = request(target, { method, headers: { ...headers, "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      res.on("end", () => settle({ kind: "response", status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (error) => settle({ kind: "error", error }));
    });
    req.on("error", (error) => settle({ kind: "error", error }));
    // Set once the request is made: an address or header Node refuses throws above, a failed attempt to the queue.
    // A process paused past the deadline (SIGSTOP) runs timers before reading sockets: setImmediate lets one round of
    // I/O pass first, so an answer that came counts.
    const timer = setTimeout(() => setImmediate(() => giveUp({ kind: "timeout" })), timeoutMs);
    req.end(body);
    stop?.addEventListener("abort", stopped, { once: true });
  });
}

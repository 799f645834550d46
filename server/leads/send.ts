/** What every transport shares: the message the agency reads, one POST with a deadline, how an answer is read. */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { sourceWords } from "~/funnel/source";
import { causeOf } from "../log";
import type { DeliveryOutcome, StoredLead } from "./types";

/**
 * The lead's text as the agency receives it: what was typed, a transport's `notes`, the visit's
 * source in words, and its reference last, so a rare duplicate shows. Built at delivery, never stored.
 */
export function messageText(lead: StoredLead, notes: readonly string[] = []): string {
  return [lead.text, ...notes, ...(lead.source ? [sourceWords(lead.source)] : []), `Reference: ${lead.id}`].join("\n\n");
}

/** What went wrong, as log.ts says it: a code such as ECONNREFUSED, never the error's message. */
export const codeOf = (error: unknown) => causeOf(error).code?.toString();

/** `stopped`: the server's stop cut the exchange short before an answer came (post's `stop`). */
export type Answer = { kind: "response"; status: number; body: string } | { kind: "timeout" } | { kind: "stopped" } | { kind: "error"; error: unknown };

/** No answer: a timeout, the server's stop, or the network's error by its code. All are retried. */
export function unanswered(answer: Exclude<Answer, { kind: "response" }>): Extract<DeliveryOutcome, { ok: false }> {
  if (answer.kind === "error") return { ok: false, retry: true, reason: "network", cause: codeOf(answer.error) };
  return { ok: false, retry: true, reason: answer.kind };
}

/** A status worth trying again: the service busy, slow or down; any other 4xx refuses the lead for good (a wrong key, a bad payload). */
export const retryable = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

/** A JSON object's fields; none for anything else. */
export const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});

/** An answer's body as a JSON object's fields; none for an HTML page or nothing: not the service's answer. */
export function answerFields(body: string): Record<string, unknown> {
  try {
    return fieldsOf(JSON.parse(body));
  } catch {
    return {};
  }
}

/** A form service answers with a few hundred bytes: what comes past this is read and dropped. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * A POST with one deadline for the whole exchange, a stalled body included, cut short when `stop`
 * aborts. node:http, not fetch (transport.test.ts shows why): fetch refuses the ports the Fetch
 * standard bars, names a hang-up UND_ERR_SOCKET, and its timeout drops an answer that came during a pause.
 */
export function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, stop?: AbortSignal): Promise<Answer> {
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
    // A process paused past the deadline (SIGSTOP) runs its timers before it reads its sockets: one
    // round of I/O passes first (setImmediate runs after the poll phase), so an answer that came counts.
    const timer = setTimeout(() => setImmediate(() => giveUp({ kind: "timeout" })), timeoutMs);
    const req = request(target, { method: "POST", headers: { ...headers, "Content-Length": Buffer.byteLength(body) } }, (res) => {
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
    req.end(body);
    stop?.addEventListener("abort", stopped, { once: true });
  });
}

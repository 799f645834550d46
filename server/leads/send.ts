/**
 * What every transport shares: the message text the agency reads, one POST with a deadline, and
 * a safe word for a failure.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { StoredLead } from "./types";

/** The lead's text as the agency receives it, its reference last, so a rare duplicate shows. */
export const messageText = (lead: StoredLead) => `${lead.text}\n\nReference: ${lead.id}`;

/** A short, safe token for what went wrong (e.g. "ECONNREFUSED"), never an error's message. */
export function causeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
}

export type Answer = { kind: "response"; status: number; body: string } | { kind: "timeout" } | { kind: "error"; error: unknown };

/** A form service answers with a few hundred bytes: what comes past this is read and dropped. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * A POST with one deadline for the whole exchange, a stalled body included.
 *
 * node:http, not Node's fetch (measured in transport.test.ts): fetch refuses the ports the Fetch
 * standard bars (a webhook on 6000 or 10080 would never be delivered), calls a service that hangs
 * up unanswered UND_ERR_SOCKET instead of ECONNRESET (undici's `request` too, and it would be one
 * more dependency), and its AbortSignal.timeout drops an answer that came during a pause, so the
 * deadline below would stay hand-made all the same.
 */
export function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    let settled = false;
    // A process paused (SIGSTOP, a frozen container) or blocked past the deadline runs its due
    // timers before it reads the sockets that became readable meanwhile: an answer that arrived
    // while it could not run would be thrown away, and the lead sent again. So the deadline lets
    // one round of I/O pass first (setImmediate runs after the event loop's poll phase).
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          req.destroy();
          resolve({ kind: "timeout" });
        }),
      timeoutMs,
    );
    const done = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = send(target, { method: "POST", headers: { ...headers, "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      res.on("end", () => done({ kind: "response", status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (error) => done({ kind: "error", error }));
    });
    req.on("error", (error) => done({ kind: "error", error }));
    req.end(body);
  });
}

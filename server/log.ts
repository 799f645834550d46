/**
 * One JSON object per line on stdout (pino), each with `level`, `time` and `event`. Never written: what a visitor
 * typed, a key, a client address; an error is its name and code only (causeOf), as a message can quote input.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, stdTimeFunctions, type Logger } from "pino";
import SonicBoom from "sonic-boom";

export type { Logger };

/** A field named like this is dropped, at any depth: a safety net. */
const SENSITIVE = /key|secret|token|passw|auth|cookie|message|body|text|description|subject|email|phone/i;
/** A path that carries a secret (the funnel's link for marketing, server/funnel-link.ts), logged without it. */
const SECRET_PATH = /^(\/funnel\/).+/i;

function scrub(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const plain = typeof value === "object" && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value));
  if (!plain || depth > 4) return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as object)) {
    if (SENSITIVE.test(name)) continue;
    if (name === "path" && typeof field === "string") out[name] = field.replace(SECRET_PATH, "$1…");
    else out[name] = depth === 0 && name === "err" ? field : scrub(field, depth + 1);
  }
  return out;
}

/** What may be said of a failure, here and in the operator's command: its code (SQLite's with its fixed word), never its message. */
export function causeOf(error: unknown): { code?: number | string; cause?: string } {
  const e = error as { errcode?: unknown; errstr?: unknown; code?: unknown } | null;
  if (typeof e?.errcode === "number") return { code: e.errcode, cause: typeof e.errstr === "string" ? e.errstr : undefined };
  return typeof e?.code === "string" || typeof e?.code === "number" ? { code: e.code } : {};
}

/**
 * stdout (1) or stderr (2), written in the background and flushed at exit for at most 1 s, up to 4 MB waiting for a
 * reader (later lines are dropped). Not pino's own destination, which at exit retries a full pipe for ever (decision 0040).
 */
export function output(fd: 1 | 2): SonicBoom {
  // Node's own stream, once opened, makes a pipe non-blocking: full, it answers EAGAIN instead of blocking the process.
  void (fd === 1 ? process.stdout : process.stderr).fd;
  let giveUpAt = Infinity;
  const stream = new SonicBoom({ fd, maxLength: 4 * 1024 * 1024, retryEAGAIN: () => performance.now() < giveUpAt });
  stream.on("error", () => undefined); // a reader that has gone (EPIPE): nobody left to tell
  process.once("exit", () => {
    giveUpAt = performance.now() + 1_000;
    try {
      stream.flushSync();
    } catch {
      // still full, or nobody reading: the rest is lost, the exit is not held
    }
  });
  return stream;
}

/** Resolves once what was logged is written, or after `ms`: the flush at exit would write past a line still being written. */
export const flushLog = (log: Logger, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    log.flush(() => (clearTimeout(timer), resolve()));
  });

export function createLogger(destination: pino.DestinationStream = output(1)): Logger {
  return pino(
    {
      messageKey: "event",
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: (fields) => scrub(fields) as Record<string, unknown> },
      serializers: { err: (error: Error) => ({ type: typeof error.name === "string" ? error.name : error.constructor?.name, ...causeOf(error) }) },
    },
    destination,
  );
}

/** A listener for the HTTP server's "request" event, so every answer has its line. Not pino-http: a quarter of the throughput (perf/README.md). */
export function requestLogger(log: Logger) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const path = req.url?.split("?")[0]; // now: Express's mounts (`/build`) cut req.url before the answer ends
    res.once("close", () => {
      const fields = { method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started) };
      if (!res.writableFinished) log.info({ ...fields, aborted: true }, "request");
      else if (res.statusCode >= 500) log.error(fields, "request");
      else log.info(fields, "request");
    });
  };
}

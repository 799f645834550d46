/**
 * Structured logging: one JSON line per event on stdout (stderr for errors is NOT used, so a
 * container log collector sees a single ordered stream).
 *
 *   log("delivery_failed", { provider: "web3forms", cause: "timeout", ms: 10004 }, "warn")
 *   → {"time":"2026-…Z","level":"warn","event":"delivery_failed","provider":"web3forms",…}
 *
 * Redaction guard: any field whose NAME contains key, secret, token, password, passwd, auth,
 * cookie, message, body, text or description (case-insensitive, at any depth) is dropped, and its
 * name is listed under "redacted". This keeps the access key and whatever a visitor typed out of
 * the logs even when a caller passes a whole object. The guard is deliberately over-eager
 * ("context" contains "text", "apiKeyId" contains "key"): pick another field name if a harmless
 * field is being dropped. Error values are reduced to { name, code, cause } (never their message,
 * which can quote a URL or input).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

const REDACT = /key|secret|token|password|passwd|auth|cookie|message|body|text|description/i;
const RESERVED = new Set(["time", "level", "event", "redacted"]);
const MAX_DEPTH = 4;
const MAX_STRING = 500;
const MAX_ITEMS = 50;

export function isRedactedField(name: string): boolean {
  return REDACT.test(name);
}

function clean(value: unknown, path: string, redacted: string[], depth: number, seen: Set<object>): unknown {
  if (value === null || value === undefined) return value;
  switch (typeof value) {
    case "string":
      return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      return value;
    case "bigint":
      return value.toString();
    case "symbol":
    case "function":
      return undefined;
  }
  const obj = value as object;
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  if (obj instanceof URL) return `${obj.origin}${obj.pathname}`; // no query: it may carry a key
  if (seen.has(obj)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[object]";
  seen.add(obj);
  try {
    if (obj instanceof Error) {
      const err = obj as Error & { code?: unknown; cause?: unknown };
      const out: Record<string, unknown> = { name: err.name };
      if (typeof err.code === "string" || typeof err.code === "number") out.code = err.code;
      if (err.cause !== undefined) out.cause = clean(err.cause, `${path}.cause`, redacted, depth + 1, seen);
      return out;
    }
    if (Array.isArray(obj)) {
      return obj.slice(0, MAX_ITEMS).map((item, i) => clean(item, `${path}[${i}]`, redacted, depth + 1, seen));
    }
    return cleanFields(obj as Record<string, unknown>, path, redacted, depth + 1, seen);
  } finally {
    seen.delete(obj);
  }
}

function cleanFields(
  fields: Record<string, unknown>,
  prefix: string,
  redacted: string[],
  depth: number,
  seen: Set<object>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (isRedactedField(name)) {
      redacted.push(path);
      continue;
    }
    if (prefix === "" && RESERVED.has(name)) continue;
    const cleaned = clean(value, path, redacted, depth, seen);
    if (cleaned !== undefined) out[name] = cleaned;
  }
  return out;
}

/** Build the line without writing it (exported for tests). */
export function formatLogLine(
  event: string,
  fields: Record<string, unknown> = {},
  level: LogLevel = "info",
  now: Date = new Date(),
): string {
  const redacted: string[] = [];
  let rest: Record<string, unknown>;
  try {
    rest = cleanFields(fields, "", redacted, 0, new Set());
  } catch {
    rest = { logError: "fields could not be serialised" };
  }
  const record: Record<string, unknown> = { time: now.toISOString(), level, event, ...rest };
  if (redacted.length > 0) record.redacted = redacted;
  return JSON.stringify(record);
}

/** Write one JSON line to stdout. Never throws. */
export function log(event: string, fields?: Record<string, unknown>, level: LogLevel = "info"): void {
  try {
    process.stdout.write(`${formatLogLine(event, fields, level)}\n`);
  } catch {
    // Logging must never break a request.
  }
}

/**
 * What an action needs to hand a lead over: the message text the agency reads, made safe from
 * what a visitor can type, and the answer when the lead could not be taken.
 */
import { json } from "@remix-run/node";
import type { LeadAnswer } from "~/context";

// Line and paragraph separators besides \n: CR, VT, FF, NEL, U+2028, U+2029.
const BREAKS = /\r\n?|[\v\f\u0085\u2028\u2029]/g;
// C0 and C1 controls (tab and newline included) and the bidirectional formatting characters.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** A one-line field (a name, an address, a subject): every break and control becomes a space. */
export function oneLine(value: string): string {
  return value.replace(BREAKS, " ").replace(CONTROLS, " ").replace(/ {2,}/g, " ").trim();
}

/**
 * A multi-line field keeps its ordinary line breaks; every line after the first is quoted with
 * "  > ", so no line a visitor wrote can pass for one of the message's own "Label: value" lines.
 */
function quoted(value: string): string {
  const lines = value.replace(BREAKS, "\n").trim().split("\n").map(oneLine);
  return lines.map((line, i) => (i === 0 ? line : `  > ${line}`.trimEnd())).join("\n");
}

/** "Label: value" lines; values marked multiLine may span lines (quoted), the others may not. */
export function leadText(rows: readonly (readonly [label: string, value: string, multiLine?: "multiLine"])[]): string {
  return rows.map(([label, value, multiLine]) => `${label}: ${multiLine ? quoted(value) : oneLine(value)}`).join("\n");
}

/** The action's answer when a lead was not taken: 429 with Retry-After, or 503 when not stored. */
export function notTaken<Data>(data: Data, answer: Extract<LeadAnswer, { ok: false }>) {
  const headers: Record<string, string> = answer.retryAfter ? { "Retry-After": String(answer.retryAfter) } : {};
  return json(data, { status: answer.problem === "rateLimited" ? 429 : 503, headers });
}

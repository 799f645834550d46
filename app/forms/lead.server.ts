/**
 * What an action needs to hand a lead over: the message text the agency reads, made safe from
 * what a visitor can type, and the answer when the lead could not be taken.
 */
import { json } from "@remix-run/node";
import unhomoglyph from "unhomoglyph";
import { site } from "~/content/site";
import type { LeadAnswer } from "~/context";
import { stripInvisible } from "./limits";

// Line and paragraph separators besides \n: CR, VT, FF, NEL, U+2028, U+2029.
const BREAKS = /\r\n?|[\v\f\u0085\u2028\u2029]/g;
// C0 and C1 controls (tab and newline included) and the bidirectional formatting characters.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** A one-line field (a name, an address, a subject): every break and control becomes a space. */
export function oneLine(value: string): string {
  return stripInvisible(value.replace(BREAKS, " ").replace(CONTROLS, " "))
    .replace(/\p{Zs}/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim();
}

/**
 * Letters that look like Latin ones in a mail client (Cyrillic, Greek), and digits and signs used
 * as letters: what Unicode's confusables (unhomoglyph, below) leave as they are, or map elsewhere.
 */
const LOOKALIKES: Record<string, string> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  к: "k",
  і: "l",
  ј: "j",
  ԁ: "d",
  ɡ: "g",
  ο: "o",
  α: "a",
  κ: "k",
  ι: "l",
  ν: "v",
  τ: "t",
  ρ: "p",
  "0": "o",
  "1": "l",
  i: "l",
  "|": "l",
  "!": "l",
  "3": "e",
  "4": "a",
  "@": "a",
  "5": "s",
  $: "s",
  "7": "t",
};
/** A name reduced to the Latin letters it looks like: Unicode's confusables (UTS #39) first, then the list above. */
const skeleton = (value: string) =>
  [...unhomoglyph(value.normalize("NFKD").replace(/\p{M}/gu, "")).toLowerCase()]
    .map((c) => LOOKALIKES[c] ?? c)
    .join("")
    .replace(/[^a-z]/g, "");

/** The visitor's name as the sender name the agency's mail client shows. */
export const VISITOR = "Website visitor";

/**
 * A sender name that says who wrote, never more: no `<address>`, no email address, no quotes, and
 * nothing that reads as the agency itself ("K0pano Digital Billing"): then "Website visitor".
 * The name as typed still stands in the message under its label.
 */
export function senderName(value: string): string {
  const name = oneLine(value)
    .replace(/<[^>]*>?/g, " ")
    .replace(/\S*@\S*/g, " ")
    .replace(/["<>]/g, "")
    .replace(/ {2,}/g, " ")
    .trim();
  return name === "" || skeleton(name).includes(skeleton(site.name)) ? VISITOR : name;
}

/** A multi-line field on its own (a CRM's field): ordinary line breaks kept, each line cleaned as oneLine. */
export function multiLine(value: string): string {
  return value.replace(BREAKS, "\n").trim().split("\n").map(oneLine).join("\n");
}

/**
 * A multi-line field keeps its ordinary line breaks; every line after the first is quoted with
 * "  > ", so no line a visitor wrote can pass for one of the message's own "Label: value" lines.
 */
function quoted(value: string): string {
  return multiLine(value)
    .split("\n")
    .map((line, i) => (i === 0 ? line : `  > ${line}`.trimEnd()))
    .join("\n");
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

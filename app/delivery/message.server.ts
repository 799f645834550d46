/**
 * Builds the messages the agency receives. Server only. Inputs must already be validated with
 * `calculatorRequestSchema` / `contactSchema`; the estimate is computed here, never taken from
 * the client.
 */
import { COMPLEXITY_BY_VALUE, estimate, formatUsd, SERVICE_BY_VALUE, TIMEFRAME_BY_VALUE } from "~/calculator/pricing";
import type { CalculatorRequest } from "~/calculator/wizard";
import { type ContactRequest, contactServiceLabel } from "~/contact/schema";
import type { Lead } from "~/context";

/** A message ready for the relay: `replyTo` is the visitor's email, `text` the body. */
export type OutgoingMessage = Lead;

/** Collapses control characters (line breaks included) so a value stays on one line. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/ {2,}/g, " ").trim();
}

/** Keeps a multi-line value readable under its label: continuation lines are indented. */
function block(value: string): string {
  return value.replace(/\r\n?/g, "\n").trim().split("\n").join("\n  ");
}

function lines(rows: readonly (readonly [string, string])[]): string {
  return rows.map(([label, value]) => `${label}: ${value}`).join("\n");
}

/** The cost-estimate enquiry, one "Label: value" per line. */
export function calculatorMessage(req: CalculatorRequest): Lead {
  const company = oneLine(req.companyName);
  return {
    kind: "calculator",
    subject: `New cost estimate request from ${company}`,
    fromName: company,
    replyTo: oneLine(req.email),
    text: lines([
      ["Service", SERVICE_BY_VALUE[req.service].label],
      ["Timeframe", TIMEFRAME_BY_VALUE[req.timeframe].label],
      ["Complexity", COMPLEXITY_BY_VALUE[req.complexity].label],
      ["Description", block(req.description)],
      ["Estimated cost", formatUsd(estimate(req))],
      ["Company", company],
      ["Email", oneLine(req.email)],
      ["Phone", oneLine(req.phone)],
    ]),
  };
}

/** The contact-form message, one "Label: value" per line. */
export function contactMessage(c: ContactRequest): Lead {
  const name = oneLine(c.name);
  return {
    kind: "contact",
    subject: `New contact form message from ${name}`,
    fromName: name,
    replyTo: oneLine(c.email),
    text: lines([
      ["Name", name],
      ["Email", oneLine(c.email)],
      ["Service", contactServiceLabel(c.service)],
      ["Message", block(c.message)],
    ]),
  };
}

import type { AppLoadContext } from "@remix-run/node";
import { notTaken } from "~/forms/lead.server";
import { landingOfReferer, sourceOfLanding } from "~/funnel/count.server";
import { VISIT_FIELDS } from "~/funnel/visit";
import { landingOfDraft, toContactErrors, toThanks } from "~/forms/draft.server";
import { contactLead } from "./lead.server";
import { contactSchema, fieldErrors } from "./schema";

/**
 * Where the thanks for a sent message are: `/?sent=contact&receipt=<id>#contact`, the receipt
 * holding its reference; without one when there is none (a bot's post is thanked as stored).
 */
export const CONTACT_SENT = /^\/\?sent=contact(&receipt=[\w-]{22})?#contact$/;

/**
 * A contact-form post: checked here whatever the browser did, then handed over as a lead. Every
 * outcome but a lead not taken is a redirect to a GET: the form with its errors, or the thanks with
 * the message's reference (app/forms/draft.server.ts). Not taken: the form again with everything typed (503,
 * or 429 with Retry-After), and the draft's id, so a send that then goes through still deletes it.
 */
export async function contactAction(request: Request, fields: Record<string, string>, context: AppLoadContext) {
  const values = { name: fields.name ?? "", email: fields.email ?? "", service: fields.service ?? "", message: fields.message ?? "" };
  // The visit's landing: posted with JavaScript; without it, kept with the mistakes of an earlier
  // post of this form (its Referer is the page of mistakes), else the utm values of the page.
  const landing = fields[VISIT_FIELDS.landing] ?? (await landingOfDraft(request, context, fields.draft)) ?? landingOfReferer(request);
  const parsed = contactSchema.safeParse(values);
  if (!parsed.success) return toContactErrors(request, context, values, fieldErrors(parsed.error), fields.draft, landing);
  // The visit's source, as the funnel counts it (decision 0041).
  const source = sourceOfLanding(landing, request, context.sources);
  const taken = await context.submitLead({ ...contactLead(parsed.data), source });
  if (!taken.ok) return notTaken({ form: "contact" as const, values, draft: fields.draft, problem: taken.problem }, taken);
  if (taken.first) void context.countVisit(request, "contact", source);
  return toThanks(request, context, { form: "contact", anchor: "contact", reference: taken.reference, draft: fields.draft });
}

import { json, redirect, type AppLoadContext } from "@remix-run/node";
import type { ContactResult } from "~/components/contact-form";
import { contactMessage } from "~/delivery/message.server";
import { contactSchema, fieldErrors } from "./schema";

export const CONTACT_SENT = "/?sent=contact#contact";

/** A contact-form post: validated here whatever the browser did, then stored for delivery. */
export async function contactAction(fields: Record<string, string>, { submitLead }: AppLoadContext) {
  const values = Object.fromEntries(["name", "email", "service", "message"].map((k) => [k, fields[k] ?? ""]));
  const parsed = contactSchema.safeParse(values);
  if (!parsed.success) {
    return json<ContactResult>({ form: "contact", values, errors: fieldErrors(parsed.error), problem: null }, { status: 400 });
  }
  const answer = await submitLead(contactMessage(parsed.data));
  if (answer.ok) return redirect(CONTACT_SENT, 303);
  return json<ContactResult>(
    { form: "contact", values, errors: null, problem: answer.problem },
    { status: answer.problem === "rateLimited" ? 429 : 503, headers: answer.retryAfter ? { "Retry-After": String(answer.retryAfter) } : {} },
  );
}

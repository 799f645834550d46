import { json, redirect } from "@remix-run/node";
import type { ContactResult } from "~/components/contact-form";
import { contactMessage } from "~/delivery/message.server";
import { getRelay } from "~/delivery/relay-instance.server";
import type { FormFields } from "~/calculator/wizard";
import { contactSchema, fieldErrors } from "./schema";

export const CONTACT_SENT = "/?sent=contact#contact";

/** A contact-form post: validated here whatever the browser did, then delivered through the relay. */
export async function contactAction(fields: FormFields) {
  const values = Object.fromEntries(["name", "email", "service", "message"].map((k) => [k, typeof fields[k] === "string" ? fields[k] : ""]));
  const parsed = contactSchema.safeParse(values);
  if (!parsed.success) {
    return json<ContactResult>({ form: "contact", values, errors: fieldErrors(parsed.error), failed: false }, { status: 400 });
  }
  const delivery = await getRelay().deliver(contactMessage(parsed.data));
  if (delivery.ok) return redirect(CONTACT_SENT, 303);
  return json<ContactResult>({ form: "contact", values, errors: null, failed: true }, { status: 502 });
}

import { json, redirect } from "@remix-run/node";
import type { ContactResult } from "~/components/contact-form";
import { contactMessage } from "~/delivery/message.server";
import { problemStatus, type FormPost } from "~/server/form-post.server";
import { contactSchema, fieldErrors } from "./schema";

export const CONTACT_SENT = "/?sent=contact#contact";

/** A contact-form post: validated here whatever the browser did, then delivered through the relay. */
export async function contactAction(post: FormPost) {
  if (post.bot) return redirect(CONTACT_SENT, 303);
  const values = Object.fromEntries(["name", "email", "service", "message"].map((k) => [k, typeof post.fields[k] === "string" ? post.fields[k] : ""]));
  if (post.overLimit) return json<ContactResult>({ form: "contact", values, errors: null, problem: "rateLimited" }, { status: 429 });
  const parsed = contactSchema.safeParse(values);
  if (!parsed.success) {
    return json<ContactResult>({ form: "contact", values, errors: fieldErrors(parsed.error), problem: null }, { status: 400 });
  }
  const delivery = await post.deliver(contactMessage(parsed.data));
  if (delivery === "sent") return redirect(CONTACT_SENT, 303);
  return json<ContactResult>({ form: "contact", values, errors: null, problem: delivery }, { status: problemStatus(delivery) });
}

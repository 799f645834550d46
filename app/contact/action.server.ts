import { json, redirect, type AppLoadContext } from "@remix-run/node";
import type { FormProblem } from "~/context";
import type { FieldErrors } from "~/forms/limits";
import { notTaken } from "~/forms/lead.server";
import { contactLead } from "./lead.server";
import { contactSchema, fieldErrors } from "./schema";

export const CONTACT_SENT = "/?sent=contact#contact";

/** A contact-form post: checked here whatever the browser did, then handed over as a lead. */
export async function contactAction(fields: Record<string, string>, { submitLead }: AppLoadContext) {
  const values = { name: fields.name ?? "", email: fields.email ?? "", service: fields.service ?? "", message: fields.message ?? "" };
  const parsed = contactSchema.safeParse(values);
  const answer = {
    form: "contact" as const,
    values,
    errors: parsed.success ? null : (fieldErrors(parsed.error) as FieldErrors | null),
    problem: null as FormProblem | null,
  };
  if (!parsed.success) return json(answer, { status: 400 });
  const taken = await submitLead(contactLead(parsed.data));
  return taken.ok ? redirect(CONTACT_SENT, 303) : notTaken({ ...answer, problem: taken.problem }, taken);
}

/**
 * The home page contact form (SPEC.md sections 3 and 5, DESIGN.md decision 3). Isomorphic.
 * Field names: `name`, `email`, `service`, `message`. Validate with
 * `contactSchema.safeParse(Object.fromEntries(formData))` and show `fieldErrors(result.error)`.
 */
import * as z from "zod/mini";

import { emailSchema, LIMITS, requiredText } from "~/calculator/fields";

export { fieldErrors, type FieldErrors } from "~/calculator/fields";

/**
 * The service select's options, in display order. Render an empty first option
 * (`<option value="">`) before them: an empty choice fails with "Please choose a service".
 */
export const CONTACT_SERVICES = [
  { value: "low-code", label: "Low-code development" },
  { value: "seo", label: "SEO & Digital Marketing" },
  { value: "ai", label: "AI Solutions" },
  { value: "zoho", label: "Zoho Solutions" },
] as const;

/** "low-code" | "seo" | "ai" | "zoho" */
export type ContactServiceValue = (typeof CONTACT_SERVICES)[number]["value"];

/** Display label of a contact service, e.g. "seo" -> "SEO & Digital Marketing". */
export function contactServiceLabel(value: ContactServiceValue): string {
  return CONTACT_SERVICES.find((o) => o.value === value)?.label ?? value;
}

/** The contact form; every field is required, texts are trimmed. */
export const contactSchema = z.object({
  name: requiredText(LIMITS.name, "Please enter your name", "Name must be at most 100 characters"),
  email: emailSchema,
  service: z.enum(
    CONTACT_SERVICES.map((o) => o.value),
    "Please choose a service",
  ),
  message: requiredText(LIMITS.message, "Please enter a message", "Message must be at most 5,000 characters"),
});

/** A valid contact form submission. */
export type ContactRequest = z.output<typeof contactSchema>;

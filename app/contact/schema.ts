/**
 * The home page contact form (SPEC.md sections 3 and 5, DESIGN.md decision 3). Isomorphic.
 * Field names: `name`, `email`, `service`, `message`. Validate with
 * `contactSchema.safeParse(Object.fromEntries(formData))` and show `fieldErrors(result.error)`.
 */
import * as z from "zod/mini";

import { emailSchema, LIMITS, requiredText } from "~/calculator/fields";
import { CONTACT_SERVICES } from "./services";

export { fieldErrors, type FieldErrors } from "~/calculator/fields";
export { CONTACT_SERVICES, type ContactServiceValue, contactServiceLabel } from "./services";

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

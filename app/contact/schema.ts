/** The contact form's rules (docs/product.md, "The contact form"), with zod. */
import * as z from "zod/mini";
import { CONTACT_SERVICES } from "~/content/services";
import { emailSchema, requiredText } from "~/forms/fields";
import { LIMITS } from "~/forms/limits";

// The browser's check needs both (app/schema.ts loads them with the calculator's rules).
export { fieldErrors } from "~/forms/fields";

/** Every field is required; texts are trimmed. */
export const contactSchema = z.object({
  name: requiredText(LIMITS.name, "Please enter your name", "Name must be at most 100 characters"),
  email: emailSchema,
  service: z.enum(
    CONTACT_SERVICES.map((o) => o.value),
    "Please choose a service",
  ),
  message: requiredText(LIMITS.message, "Please enter a message", "Message must be at most 5,000 characters"),
});

export type ContactRequest = z.output<typeof contactSchema>;

/** The contact form's service choices, without zod: the form renders these, schema.ts checks them. */

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

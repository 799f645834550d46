/**
 * The contact form's service choices, in display order (docs/product.md). The form shows an
 * empty "Choose a service" option first; choosing none is an error.
 */
export const CONTACT_SERVICES = [
  { value: "low-code", label: "Low-code development" },
  { value: "seo", label: "SEO & Digital Marketing" },
  { value: "ai", label: "AI Solutions" },
  { value: "zoho", label: "Zoho Solutions" },
] as const;

export type ContactServiceValue = (typeof CONTACT_SERVICES)[number]["value"];

export function contactServiceLabel(value: ContactServiceValue): string {
  return CONTACT_SERVICES.find((o) => o.value === value)!.label;
}

/**
 * Honeypot field: a text input people never see or reach, that form-filling bots tend to fill.
 *
 * The UI renders it inside a wrapper hidden with a CSS class (NOT an inline style: the CSP's
 * style-src 'self' blocks style="" attributes), with aria-hidden="true" on the wrapper, and the
 * input gets tabIndex={-1} and autoComplete="off" so neither keyboard users, screen readers nor
 * password managers/autofill put anything in it. Its label should tell a human to leave it empty.
 *
 * A post with a filled honeypot should look successful to the sender (so the bot learns nothing)
 * but must not be delivered; log it without the field's content.
 */

import { HONEYPOT_FIELD } from "~/utils/honeypot";

export { HONEYPOT_FIELD };

/** True when the honeypot has any non-whitespace content (or is not a plain string). */
export function isBot(form: FormData): boolean {
  const values = form.getAll(HONEYPOT_FIELD);
  return values.some((value) => typeof value !== "string" || value.trim() !== "");
}

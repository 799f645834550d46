/**
 * The honeypot: a field people never see (hidden visually and from assistive technology) and
 * bots fill in. A post with it filled is answered as a success and never delivered.
 */
export const HONEYPOT_FIELD = "website";

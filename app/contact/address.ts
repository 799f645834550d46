/**
 * Without JavaScript, a contact form with mistakes comes back as `/?contact=<id>#contact`
 * (draft.server.ts). A module of its own: the page's loader and the form both read it, and the
 * form's module imports the draft's types, so the draft's module importing the form made a circle.
 */
export const CONTACT_DRAFT_PARAM = "contact";

/**
 * The addresses of what the server keeps for a browser (app/forms/draft.server.ts), beside the
 * page's loader, which reads them in the browser too: the thanks' receipt (`?receipt=<id>`: the
 * lead's reference, and for the calculator what was sent) and a contact form's mistakes without
 * JavaScript (`?contact=<id>`).
 */
export const RECEIPT_PARAM = "receipt";
export const CONTACT_DRAFT_PARAM = "contact";

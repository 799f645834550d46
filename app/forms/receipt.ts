/**
 * The thanks' receipt (`?receipt=<id>`): what the server kept, after a send, for the browser that
 * sent it (decision 0020): the lead's reference, and for the calculator what was sent. Both forms'
 * thanks read it (app/calculator/draft.server.ts, app/contact/draft.server.ts).
 */
export const RECEIPT_PARAM = "receipt";

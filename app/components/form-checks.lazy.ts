/**
 * The form rules as the browser runs them (zod): loaded on demand through form-checks.ts, so the
 * home page does not download them until a visitor reaches for a form. The server imports the
 * same modules directly and checks every post whatever the browser did.
 */
export { next } from "~/calculator/wizard";
export { contactSchema, fieldErrors } from "~/contact/schema";

/**
 * Both forms' rules as the browser loads them: one module, fetched when a visitor first reaches for
 * either form (the home page hands it to both, app/forms/README.md). One rather than one per form:
 * a module loaded on demand that shares modules with the page splits them off into scripts of
 * their own, and the bounds the page and both forms share (app/forms/limits.ts) had become a
 * script of the home page's first load.
 */
export { next } from "~/calculator/rules";
export { contactSchema, fieldErrors } from "~/contact/schema";

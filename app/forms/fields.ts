/** The field rules both forms share, and the one place a zod error becomes per-field messages. */
import * as z from "zod/mini";
import { characters, type FieldErrors, LIMITS } from "./limits";

/**
 * At most `max` characters as the forms count them (limits.ts), or `tooLong` with how many there
 * are, e.g. "Description must be at most 5,000 characters; this one has 5,321": a visitor without
 * JavaScript, whose box does not count, learns how much to cut.
 */
const atMost = (max: number, tooLong: string) =>
  z.refine<string>((text) => characters(text) <= max, {
    error: ({ input }) => `${tooLong}; this one has ${characters(input as string).toLocaleString("en")}`,
  });

/**
 * A required string, trimmed first: missing, empty or whitespace-only fails with `required`;
 * longer than `max` characters (after trimming) fails with `tooLong`.
 */
export function requiredText(max: number, required: string, tooLong: string) {
  return z.string({ error: required }).check(z.trim(), z.minLength(1, { error: required, abort: true }), atMost(max, tooLong));
}

/** An optional string, trimmed: missing counts as empty; longer than `max` characters fails with `tooLong`. */
export function optionalText(max: number, tooLong: string) {
  return z._default(z.string().check(z.trim(), atMost(max, tooLong)), "");
}

/** Required email address, trimmed, at most 254 characters. */
export const emailSchema = z.string({ error: "Please enter your email address" }).check(
  z.trim(),
  z.minLength(1, { error: "Please enter your email address", abort: true }),
  z.maxLength(LIMITS.email, { error: "Email address must be at most 254 characters", abort: true }),
  z.email({ error: "Please enter a valid email address", abort: true }),
  // The part before @ holds at most 64 characters (RFC 5321), as mail servers and Zoho CRM check.
  z.regex(/^[^@]{1,64}@/, "Please enter a valid email address"),
);

/**
 * Required phone number, trimmed: 7–30 characters of digits, spaces and `+ ( ) -`, with at least
 * 7 digits (which also enforces the 7-character minimum).
 */
export const phoneSchema = z.string({ error: "Please enter your phone number" }).check(
  z.trim(),
  z.minLength(1, { error: "Please enter your phone number", abort: true }),
  z.regex(/^[0-9 +()-]*$/, {
    error: "Phone number may only contain digits, spaces and + ( ) -",
    abort: true,
  }),
  z.maxLength(LIMITS.phoneMax, { error: "Phone number must be at most 30 characters", abort: true }),
  z.refine((v: string) => (v.match(/[0-9]/g)?.length ?? 0) >= LIMITS.phoneMin, "Phone number must contain at least 7 digits"),
);

/**
 * Turns a zod error into `{ field: [messages] }` for the top-level fields of an object schema.
 * Errors not tied to a field (the whole value was not an object) are listed under `""`.
 */
export function fieldErrors(error: z.core.$ZodError): FieldErrors {
  const flat = z.flattenError(error);
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(flat.fieldErrors as Record<string, string[] | undefined>)) {
    if (messages && messages.length > 0) out[field] = messages;
  }
  if (flat.formErrors.length > 0) out[""] = flat.formErrors;
  return out;
}

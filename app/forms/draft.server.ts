import type { FieldErrors } from "./limits";

/** Field errors kept in a draft, read leniently: only lists of strings, none: null (the store is trusted, not blindly). */
export function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((message) => typeof message === "string"),
  );
  return entries.length ? Object.fromEntries(entries) : null;
}

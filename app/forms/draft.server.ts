import type { FieldErrors } from "./limits";

/** Field errors kept in a draft, read leniently: only lists of strings, none: null (the store is trusted, not blindly). */
export function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((m) => typeof m === "string"));
  return entries.length ? Object.fromEntries(entries) : null;
}

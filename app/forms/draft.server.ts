import { type FieldErrors, LIMITS } from "./limits";

/**
 * What a draft keeps of the texts a post carried (decision 0044): each whole, even too long (no box
 * cuts a paste, and the visitor shortens it on the page of mistakes), up to half again its bound,
 * in UTF-16 units as the store holds it. Past that a text is not kept, and its message says so: a
 * draft stays within the 9 KB or so that the store's budget allows each of one client's posts, so
 * one client alone never makes it evict (decision 0034).
 */
export function keptTexts<Name extends "description" | "message" | "name" | "companyName" | "email" | "phone">(
  texts: Record<Name, string>,
  errors: FieldErrors | null,
) {
  const kept = { ...texts };
  const said = errors && { ...errors };
  for (const name of Object.keys(texts) as Name[]) {
    const bound: number = name === "phone" ? LIMITS.phoneMax : LIMITS[name as Exclude<Name, "phone">];
    if (kept[name].length <= bound * 1.5) continue;
    kept[name] = "";
    if (said?.[name]) said[name] = said[name].map((message) => `${message}, too many to keep here`);
  }
  return [kept, said] as const;
}

/** Field errors kept in a draft, read leniently: only lists of strings, none: null (the store is trusted, not blindly). */
export function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((message) => typeof message === "string"),
  );
  return entries.length ? Object.fromEntries(entries) : null;
}

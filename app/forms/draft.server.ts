import { characters, type FieldErrors, LIMITS } from "./limits";

/**
 * What a draft keeps of the texts a post carried (decision 0044): every text the check takes,
 * whole; one too long too (no box cuts a paste, and the visitor shortens it on the page of
 * mistakes), up to half again its bound in UTF-16 units as the store holds it. Past that a text too
 * long is not kept, and its message says so: a draft of texts too long stays within the size the
 * store's budget allows each of one client's posts (decision 0034); valid texts of emoji may take
 * up to twice it, which a client's share of the budget absorbs.
 */
export function keptTexts<Name extends "description" | "message" | "name" | "companyName" | "email" | "phone">(
  texts: Record<Name, string>,
  errors: FieldErrors | null,
) {
  const kept = { ...texts };
  const said = errors && { ...errors };
  for (const name of Object.keys(texts) as Name[]) {
    const bound: number = name === "phone" ? LIMITS.phoneMax : LIMITS[name as Exclude<Name, "phone">];
    // A text the check takes is always kept, whatever its units (an emoji is two: a valid text is
    // at most twice its bound); only one too long is held to half again its bound.
    if (characters(kept[name]) <= bound || kept[name].length <= bound * 1.5) continue;
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

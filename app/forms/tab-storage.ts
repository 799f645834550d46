/**
 * What a visitor typed into a form, kept in this tab's session storage until it is sent (decision
 * 0025): the calculator's answers (app/calculator/session.ts) and the contact form's fields. A
 * reload, Back and Forward, and a send that failed find them there; none of it reaches an address
 * or the server before the send. Kept in memory too: a browser that refuses storage (all cookies
 * blocked) keeps them for the page's life.
 */
const memory: Record<string, unknown> = {};

/** The fields kept under `key`; none: `{}`. */
export function kept(key: string): Readonly<Record<string, unknown>> {
  try {
    memory[key] ??= JSON.parse(sessionStorage.getItem(key) ?? "null");
  } catch {
    // unreadable: what is in memory, if anything
  }
  return Object(memory[key]) as Record<string, unknown>; // anything but an object holds no fields
}

/** Keeps the fields under `key` (null: forgets them, as after a send). */
export function keep(key: string, fields: Readonly<Record<string, unknown>> | null) {
  memory[key] = fields;
  try {
    sessionStorage.setItem(key, JSON.stringify(fields));
  } catch {
    // kept in memory only
  }
}

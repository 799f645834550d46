/** Per-field error messages, e.g. `{ email: ["Please enter a valid email address"] }`. */
export type FieldErrors = Record<string, string[]>;

/**
 * Length bounds of the free-text fields (docs/product.md, "The rules of the fields"), in
 * characters as `characters` counts them. No box has a `maxLength`: a browser cuts a paste at it
 * without a word, and counts UTF-16 units, an emoji two (decision 0044). The check says how long a
 * text may be, and with JavaScript a long text's box counts down (Field's `count`, roomLeft).
 */
export const LIMITS = {
  name: 100,
  companyName: 120,
  email: 254,
  phoneMin: 7,
  phoneMax: 30,
  description: 5000,
  message: 5000,
} as const;

/**
 * Code points a reader does not see but a program (an AI triage tool, a filter) reads: Unicode's
 * default-ignorables (zero-width characters, soft hyphen, Hangul fillers, variation selectors,
 * TAG characters, bidirectional controls, word joiners…), the other format characters, and the
 * braille blank. Removed from every field of every form before anything else sees it
 * (server/form-posts.ts).
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/gu;

/** A field as the visitor sees it: invisible code points removed, composed (NFC). */
export function stripInvisible(value: string): string {
  return value.normalize("NFC").replace(INVISIBLE, "");
}

/**
 * A text's length as the forms count it against LIMITS: its characters as the server keeps it
 * (composed, invisible code points removed, trimmed), each code point one, so an emoji counts one
 * (a flag or a skin tone two). The box's count in the page and the check in the browser and on the
 * server all use this, so what the page says is what the server accepts.
 */
export const characters = (text: string) => [...stripInvisible(text).trim()].length;

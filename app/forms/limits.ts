/** Per-field error messages, e.g. `{ email: ["Please enter a valid email address"] }`. */
export type FieldErrors = Record<string, string[]>;

/** Length bounds of the free-text fields (docs/product.md, "The rules of the fields"); the inputs' `maxLength` too. */
export const LIMITS = {
  name: 100,
  companyName: 120,
  email: 254,
  phoneMin: 7,
  phoneMax: 30,
  description: 5000,
  message: 5000,
} as const;

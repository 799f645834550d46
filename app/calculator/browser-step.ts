import { keepStep } from "./estimate-this";
import { type FormFields, next } from "./rules";
import { parseState } from "./state";

/**
 * The wizard's step as the browser takes it (steps 1-4, and the check before a send): the rules'
 * next state for the posted fields, kept and counted as every step taken in the browser is
 * (keepStep). Loaded with the rules (app/schema.ts), when the visitor first reaches for a form.
 */
export function takeStep(fields: FormFields) {
  const before = parseState(fields);
  const outcome = next(before, fields);
  keepStep(before, outcome.state);
  return outcome;
}

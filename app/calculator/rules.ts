/**
 * The wizard as a pure state machine (docs/product.md, "The cost calculator"), run by the home page's action for every
 * post and by the browser for steps 1–4. Every wizard form carries `stateToFields(state)` as hidden
 * fields plus one button: a choice (`service=seo`, `timeframe=…`, `complexity=…`) or an intent
 * (`intent=back|continue|send`) with the step's text fields. The action does
 * `next(parseState(fields), fields)`.
 */
import * as z from "zod/mini";
import { emailSchema, fieldErrors, optionalText, phoneSchema, requiredText } from "~/forms/fields";
import type { FieldErrors } from "~/forms/limits";
import { LIMITS } from "~/forms/limits";
import { COMPLEXITY_VALUES, SERVICE_VALUES, TIMEFRAME_VALUES } from "./pricing";
import { BACK, CHANGE_FIELD, CHOICES, INTENT_FIELD, reachable, type Step, type WizardState } from "./state";

// The post's hidden state is read by state.ts (the page restores the wizard with it, without zod).
export { parseState } from "./state";

const service = z.enum(SERVICE_VALUES, "Please choose a service");
const timeframe = z.enum(TIMEFRAME_VALUES, "Please choose a timeframe");
const complexity = z.enum(COMPLEXITY_VALUES, "Please choose a complexity");
// Optional, as the specification has it: Continue always moves on to step 5 (its hint asks for a few lines).
const description = optionalText(LIMITS.description, "Description must be at most 5,000 characters");
const companyName = requiredText(LIMITS.companyName, "Please enter your company name", "Company name must be at most 120 characters");
const name = optionalText(LIMITS.name, "Name must be at most 100 characters");

/** What each step asks for, in order; step 5's fields are the visitor's details. */
const STEPS = [
  z.object({ service }),
  z.object({ timeframe }),
  z.object({ complexity }),
  z.object({ description }),
  z.object({ name, companyName, email: emailSchema, phone: phoneSchema }),
] as const;

/** The whole request as the agency receives it. */
export const calculatorRequestSchema = z.object({ service, timeframe, complexity, description, name, companyName, email: emailSchema, phone: phoneSchema });
export type CalculatorRequest = z.output<typeof calculatorRequestSchema>;

/** Posted fields (e.g. `Object.fromEntries(formData)`); anything but a string counts as absent. */
export type FormFields = Readonly<Record<string, unknown>>;

function text(fields: FormFields, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** `errors` when the step did not pass its check; `ready` on a valid send (the wizard stays on 5). */
export interface NextResult {
  state: WizardState;
  errors?: FieldErrors;
  ready?: CalculatorRequest;
}

/** The state at `step`; `review` only while a Change is under way (below the step it came from). */
function at(state: WizardState, step: Step, review?: Step): WizardState {
  const { review: _, ...rest } = state;
  const reached = Math.max(state.reached, step) as Step;
  return review && step < review ? { ...rest, step, reached, review } : { ...rest, step, reached };
}

/**
 * One transition. Back goes one step down (never below 1) keeping everything, even what was just
 * typed; Change (`change<N>`, from the answers shown at steps 2–5) goes straight to an earlier step
 * N the same way, and once that step passes the wizard goes back to the step the Change was pressed
 * on, or to the first step still missing before it. Any other post checks the current step's
 * fields and advances, or stays with `errors`. A text field missing from the post keeps the
 * state's value; other steps' fields are ignored.
 */
export function next(state: WizardState, posted: FormFields): NextResult {
  const draft: WizardState = { ...state };
  if (state.step === 4) draft.description = text(posted, "description") ?? state.description;
  if (state.step === 5) for (const field of ["name", "companyName", "email", "phone"] as const) draft[field] = text(posted, field) ?? state[field];
  if (text(posted, INTENT_FIELD) === BACK) return { state: at(draft, Math.max(1, state.step - 1) as Step) };
  const change = ([1, 2, 3, 4] as const).find((step) => step < state.step && text(posted, `${CHANGE_FIELD}${step}`) !== undefined);
  if (change) return { state: at(draft, change, state.review ?? state.step) };

  // A choice as its button posts it, its label, or as a link or a hidden field does, its value.
  const { name: choice, options } = CHOICES[state.step - 1] ?? {};
  const chosen = choice && text(posted, choice);
  const input = choice ? { ...draft, [choice]: options!.find((option) => option.label === chosen)?.value ?? chosen } : draft;
  const parsed = STEPS[state.step - 1]!.safeParse(input);
  if (!parsed.success) return { state: draft, errors: fieldErrors(parsed.error) };
  const updated: WizardState = { ...draft, ...parsed.data };
  if (state.step < 5)
    return { state: at(updated, state.review ? (Math.min(state.review, reachable(updated)) as Step) : ((state.step + 1) as Step), state.review) };

  const whole = calculatorRequestSchema.safeParse(updated);
  if (whole.success) return { state: updated, ready: whole.data };
  // A hand-built state, or one History brought back to step 5 past a description too long (Back
  // keeps what was typed): the visitor goes back to the first step in error, to mend it there.
  const errors = fieldErrors(whole.error);
  const first = Math.min(...Object.keys(errors).map((field) => STEPS.findIndex((step) => field in step.shape) + 1 || 5));
  return { state: { ...updated, step: Math.min(first, reachable(updated)) as Step }, errors };
}

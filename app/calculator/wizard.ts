/**
 * The cost-calculator wizard as a pure state machine (SPEC.md section 4), shared by the route
 * action (JavaScript off) and the component (JavaScript on). Isomorphic: no Node or DOM APIs.
 *
 * Form protocol (works with one click and no JavaScript):
 * - Every wizard form renders `stateToFields(state)` as `<input type="hidden">` fields. Their names
 *   start with `STATE_PREFIX` ("state."), so they never collide with the visible controls below.
 * - Steps 1–3: each choice is a submit button `name="service" value="seo"` (resp. `timeframe`,
 *   `complexity`). Step 4: a `description` textarea and a button `name="intent" value="continue"`.
 *   Step 5: inputs `companyName`, `email`, `phone` and a button `name="intent" value="send"`.
 *   Back (steps 2–5): a button `name="intent" value="back"`.
 * - The action does `next(parseState(fields), fields)` with `fields = Object.fromEntries(formData)`.
 */
import * as z from "zod/mini";

import { emailSchema, fieldErrors, type FieldErrors, LIMITS, phoneSchema, requiredText } from "./fields";
import { COMPLEXITY_VALUES, SERVICE_VALUES, TIMEFRAME_VALUES } from "./pricing";
import { type FormFields, INTENT, INTENT_FIELD, type Step, formString, type TextField, type WizardState } from "./wizard-state";

export { fieldErrors, type FieldErrors, LIMITS } from "./fields";
export * from "./wizard-state";

// ---------------------------------------------------------------------------------------------
// Schemas

export const serviceSchema = z.enum(SERVICE_VALUES, "Please choose a service");
export const timeframeSchema = z.enum(TIMEFRAME_VALUES, "Please choose a timeframe");
export const complexitySchema = z.enum(COMPLEXITY_VALUES, "Please choose a complexity");
/** Required, 1–5,000 characters after trimming. */
export const descriptionSchema = requiredText(
  LIMITS.description,
  "Please describe your project",
  "Description must be at most 5,000 characters",
);
/** Required, 1–120 characters after trimming. */
export const companyNameSchema = requiredText(
  LIMITS.companyName,
  "Please enter your company name",
  "Company name must be at most 120 characters",
);

export const step1Schema = z.object({ service: serviceSchema });
export const step2Schema = z.object({ timeframe: timeframeSchema });
export const step3Schema = z.object({ complexity: complexitySchema });
export const step4Schema = z.object({ description: descriptionSchema });
export const step5Schema = z.object({ companyName: companyNameSchema, email: emailSchema, phone: phoneSchema });

/** The whole request as sent to the agency; every field is required at send time. */
export const calculatorRequestSchema = z.object({
  service: serviceSchema,
  timeframe: timeframeSchema,
  complexity: complexitySchema,
  description: descriptionSchema,
  companyName: companyNameSchema,
  email: emailSchema,
  phone: phoneSchema,
});
export type CalculatorRequest = z.output<typeof calculatorRequestSchema>;

/** The step on which each request field is entered. */
export const FIELD_STEP = {
  service: 1,
  timeframe: 2,
  complexity: 3,
  description: 4,
  companyName: 5,
  email: 5,
  phone: 5,
} as const satisfies Record<keyof CalculatorRequest, Step>;

// ---------------------------------------------------------------------------------------------
// Transition

/**
 * Outcome of `next`. `errors` (per field, see `fieldErrors`) is set when the step did not
 * validate; `ready` is set only on step 5 when the whole request is valid and should be sent.
 */
export interface NextResult {
  state: WizardState;
  errors?: FieldErrors;
  ready?: CalculatorRequest;
}

const back = (state: WizardState): Step => Math.max(1, state.step - 1) as Step;

/**
 * One wizard transition, validating only the current step:
 * - `intent=back` goes one step down (never below 1), keeping every value, including what was
 *   just typed on steps 4–5.
 * - Steps 1–3: the submission's `service` / `timeframe` / `complexity` is validated and stored, and
 *   the wizard advances.
 * - Step 4 (any other intent, normally `continue`): `description` is validated; advances to 5.
 * - Step 5 (any other intent, normally `send`): `companyName`, `email`, `phone` are validated, then
 *   the whole request; on success returns `ready` and stays on step 5 (reset after delivery).
 * On failure the step does not change, typed texts are kept and `errors` says why. A text field
 * missing from the submission keeps the state's value. Fields of other steps are ignored.
 */
export function next(state: WizardState, submission: FormFields): NextResult {
  const intent = formString(submission, INTENT_FIELD);
  const typed = (f: TextField): string => formString(submission, f) ?? state[f];

  switch (state.step) {
    case 1:
    case 2:
    case 3: {
      if (intent === INTENT.back) return { state: { ...state, step: back(state) } };
      const schema = [step1Schema, step2Schema, step3Schema][state.step - 1]!;
      const field = (["service", "timeframe", "complexity"] as const)[state.step - 1]!;
      const parsed = schema.safeParse({ [field]: formString(submission, field) });
      if (!parsed.success) return { state, errors: fieldErrors(parsed.error) };
      return { state: { ...state, ...parsed.data, step: (state.step + 1) as Step } };
    }
    case 4: {
      const draft: WizardState = { ...state, description: typed("description") };
      if (intent === INTENT.back) return { state: { ...draft, step: 3 } };
      const parsed = step4Schema.safeParse({ description: draft.description });
      if (!parsed.success) return { state: draft, errors: fieldErrors(parsed.error) };
      return { state: { ...draft, ...parsed.data, step: 5 } };
    }
    case 5: {
      const draft: WizardState = {
        ...state,
        companyName: typed("companyName"),
        email: typed("email"),
        phone: typed("phone"),
      };
      if (intent === INTENT.back) return { state: { ...draft, step: 4 } };
      const parsed = step5Schema.safeParse({ companyName: draft.companyName, email: draft.email, phone: draft.phone });
      if (!parsed.success) return { state: draft, errors: fieldErrors(parsed.error) };
      const updated: WizardState = { ...draft, ...parsed.data };
      const whole = calculatorRequestSchema.safeParse(updated);
      if (whole.success) return { state: updated, ready: whole.data };
      // Only reachable with a hand-built state: send the visitor to the first step in error.
      const errors = fieldErrors(whole.error);
      const steps = Object.keys(errors).map((f) => (f in FIELD_STEP ? FIELD_STEP[f as keyof CalculatorRequest] : 5));
      return { state: { ...updated, step: Math.min(5, ...steps) as Step }, errors };
    }
  }
}

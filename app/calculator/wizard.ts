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
import {
  COMPLEXITY_VALUES,
  type ComplexityValue,
  DEFAULT_COMPLEXITY,
  isComplexity,
  isService,
  isTimeframe,
  SERVICE_VALUES,
  type ServiceValue,
  TIMEFRAME_VALUES,
  type TimeframeValue,
} from "./pricing";

export { fieldErrors, type FieldErrors, LIMITS } from "./fields";

/** The wizard's steps; the progress indicator reads "Step N of 5". */
export type Step = 1 | 2 | 3 | 4 | 5;
export const STEP_COUNT = 5;

/** Everything the wizard knows. Text fields hold what the visitor typed (trimmed once valid). */
export interface WizardState {
  step: Step;
  service?: ServiceValue;
  timeframe?: TimeframeValue;
  complexity: ComplexityValue;
  description: string;
  companyName: string;
  email: string;
  phone: string;
}

/** A fresh wizard: step 1, nothing chosen, complexity "medium". Also the state after a send. */
export function resetState(): WizardState {
  return { step: 1, complexity: DEFAULT_COMPLEXITY, description: "", companyName: "", email: "", phone: "" };
}

/** The initial state (frozen; copy it with `resetState()` when you need a mutable one). */
export const initialState: Readonly<WizardState> = Object.freeze(resetState());

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
// Hidden-field protocol

/** Name of the submit buttons' field for Back / Continue / Send. */
export const INTENT_FIELD = "intent";
/** Values of `intent`. */
export const INTENT = { back: "back", continue: "continue", send: "send" } as const;
/** Prefix of every hidden state field, e.g. `state.step`, `state.service`. */
export const STATE_PREFIX = "state.";

/** Form fields as posted, e.g. `Object.fromEntries(formData)`; non-string values are ignored. */
export type FormFields = Readonly<Record<string, unknown>>;

const TEXT_FIELDS = ["description", "companyName", "email", "phone"] as const;
type TextField = (typeof TEXT_FIELDS)[number];
const TEXT_MAX: Record<TextField, number> = {
  description: LIMITS.description,
  companyName: LIMITS.companyName,
  email: LIMITS.email,
  phone: LIMITS.phoneMax,
};

function str(fields: FormFields, name: string): string | undefined {
  const v = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
  return typeof v === "string" ? v : undefined;
}

/**
 * The state as hidden form fields (`state.step`, `state.service`, …). Unset choices and empty
 * texts are left out. Render each entry as `<input type="hidden" name={key} value={value}>`.
 */
export function stateToFields(state: WizardState): Record<string, string> {
  const out: Record<string, string> = { [`${STATE_PREFIX}step`]: String(state.step) };
  if (state.service) out[`${STATE_PREFIX}service`] = state.service;
  if (state.timeframe) out[`${STATE_PREFIX}timeframe`] = state.timeframe;
  out[`${STATE_PREFIX}complexity`] = state.complexity;
  for (const f of TEXT_FIELDS) if (state[f] !== "") out[`${STATE_PREFIX}${f}`] = state[f];
  return out;
}

/** The furthest step the values allow: step N needs every choice of the steps before it. */
function maxStep(s: Omit<WizardState, "step">): Step {
  if (!s.service) return 1;
  if (!s.timeframe) return 2;
  // complexity always has a value (medium by default), so step 4 only needs service and timeframe.
  return descriptionSchema.safeParse(s.description).success ? 5 : 4;
}

/**
 * Reads the hidden `state.*` fields of an untrusted form leniently: unknown choices are dropped,
 * texts longer than their bound are dropped, complexity falls back to "medium", and the step is
 * clamped to what the values allow (e.g. step 3 needs a valid service and timeframe, step 5 also
 * a valid description). With no state fields at all, this is `resetState()`.
 */
export function parseState(fields: FormFields): WizardState {
  const get = (name: string) => str(fields, STATE_PREFIX + name);
  const service = get("service");
  const timeframe = get("timeframe");
  const complexity = get("complexity");
  const values: Omit<WizardState, "step"> = {
    ...(isService(service) ? { service } : {}),
    ...(isTimeframe(timeframe) ? { timeframe } : {}),
    complexity: isComplexity(complexity) ? complexity : DEFAULT_COMPLEXITY,
    description: "",
    companyName: "",
    email: "",
    phone: "",
  };
  for (const f of TEXT_FIELDS) {
    const v = get(f);
    if (v !== undefined && v.length <= TEXT_MAX[f]) values[f] = v;
  }
  const rawStep = get("step") ?? "";
  const requested = /^[1-5]$/.test(rawStep) ? (Number(rawStep) as Step) : 1;
  return { step: Math.min(requested, maxStep(values)) as Step, ...values };
}

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
  const intent = str(submission, INTENT_FIELD);
  const typed = (f: TextField): string => str(submission, f) ?? state[f];

  switch (state.step) {
    case 1:
    case 2:
    case 3: {
      if (intent === INTENT.back) return { state: { ...state, step: back(state) } };
      const schema = [step1Schema, step2Schema, step3Schema][state.step - 1]!;
      const field = (["service", "timeframe", "complexity"] as const)[state.step - 1]!;
      const parsed = schema.safeParse({ [field]: str(submission, field) });
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

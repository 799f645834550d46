/**
 * The cost-calculator wizard's state and its hidden-field protocol (see wizard.ts for the whole
 * protocol and the transitions). No zod here: the home page renders and restores the wizard with
 * this module alone, and loads the validating transitions (wizard.ts) only when a form is used.
 */
import { LIMITS } from "./limits";
import { type ComplexityValue, DEFAULT_COMPLEXITY, isComplexity, isService, isTimeframe, type ServiceValue, type TimeframeValue } from "./pricing";

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
export type TextField = (typeof TEXT_FIELDS)[number];
const TEXT_MAX: Record<TextField, number> = {
  description: LIMITS.description,
  companyName: LIMITS.companyName,
  email: LIMITS.email,
  phone: LIMITS.phoneMax,
};

export function formString(fields: FormFields, name: string): string | undefined {
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
  // The same rule as descriptionSchema (wizard.ts), without zod: 1 to 5,000 characters once trimmed.
  const description = s.description.trim();
  return description.length >= 1 && description.length <= LIMITS.description ? 5 : 4;
}

/**
 * Reads the hidden `state.*` fields of an untrusted form leniently: unknown choices are dropped,
 * texts longer than their bound are dropped, complexity falls back to "medium", and the step is
 * clamped to what the values allow (e.g. step 3 needs a valid service and timeframe, step 5 also
 * a valid description). With no state fields at all, this is `resetState()`.
 */
export function parseState(fields: FormFields): WizardState {
  const get = (name: string) => formString(fields, STATE_PREFIX + name);
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

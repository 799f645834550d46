/**
 * The wizard's state and how it travels in a form's hidden fields, without zod (the page renders
 * the wizard with this alone; rules.ts has the checks and the transitions).
 */
import { type ComplexityValue, DEFAULT_COMPLEXITY, type ServiceValue, type TimeframeValue } from "./pricing";

/** The wizard card's id: every step's answer lands there (`/?draft=…#wizard`), under the header. */
export const WIZARD_ID = "wizard";

/** A step page's parameters without JavaScript (`?draft=<id>&step=<n>`), and the thanks' receipt (`?receipt=<id>`). */
export const DRAFT_PARAM = "draft";
export const STEP_PARAM = "step";
export const RECEIPT_PARAM = "receipt";

/** The progress indicator reads "Step N of 5". */
export type Step = 1 | 2 | 3 | 4 | 5;
export const STEP_COUNT = 5;

/** Everything the wizard knows. Text fields hold what the visitor typed (trimmed once valid). */
export interface WizardState {
  step: Step;
  service?: ServiceValue;
  timeframe?: TimeframeValue;
  complexity: ComplexityValue;
  description: string;
  /** Step 5: the visitor's own name, optional. */
  name: string;
  companyName: string;
  email: string;
  phone: string;
  /** Set by a Change control on step 5: after that step, go straight on to the first one missing. */
  review?: true;
}

export const TEXT_FIELDS = ["description", "name", "companyName", "email", "phone"] as const;

/** A fresh wizard: step 1, nothing chosen, complexity "medium". Also the state after a send. */
export function resetState(): WizardState {
  return { step: 1, complexity: DEFAULT_COMPLEXITY, description: "", name: "", companyName: "", email: "", phone: "" };
}

/** The submit buttons' field for Back, Continue and Send; the choices post their own names. */
export const INTENT_FIELD = "intent";
export const INTENT = { back: "back", continue: "continue", send: "send" } as const;
/** Step 5's Change controls post `change=<step>` to go straight to that step. */
export const CHANGE_FIELD = "change";
/** Hidden state fields are prefixed (`state.step`, …) so they never collide with the visible ones. */
export const STATE_PREFIX = "state.";

/** The state as hidden fields; unset choices and empty texts are left out. */
export function stateToFields(state: WizardState): Record<string, string> {
  const fields: Record<string, string> = { [`${STATE_PREFIX}step`]: String(state.step), [`${STATE_PREFIX}complexity`]: state.complexity };
  if (state.service) fields[`${STATE_PREFIX}service`] = state.service;
  if (state.timeframe) fields[`${STATE_PREFIX}timeframe`] = state.timeframe;
  for (const name of TEXT_FIELDS) if (state[name] !== "") fields[`${STATE_PREFIX}${name}`] = state[name];
  if (state.review) fields[`${STATE_PREFIX}review`] = "1";
  return fields;
}

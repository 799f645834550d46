/**
 * The wizard's state, how it travels in a form's hidden fields, and how such fields are read back,
 * without zod: the page renders and restores the wizard with this alone (rules.ts has the checks
 * and the transitions).
 */
import { type FunnelEvent, LANDING_MAX } from "~/funnel/visit";
import { COMPLEXITIES, type ComplexityValue, DEFAULT_COMPLEXITY, SERVICES, type ServiceValue, TIMEFRAMES, type TimeframeValue } from "./pricing";

/** The wizard card's id: every step's answer lands there (`/?draft=…#wizard`), under the header. */
export const WIZARD_ID = "wizard";

/** A step page's parameters without JavaScript (`?draft=<id>&step=<n>`). */
export const DRAFT_PARAM = "draft";
export const STEP_PARAM = "step";

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
  /** The step a Change control was pressed on (2–5): once the changed step passes, the wizard goes back there, or to the first step missing before it. */
  review?: Step;
  /** The furthest step this visit has reached: the funnel counts each step once a visit (decision 0036). */
  reached: Step;
  /** Where the visit came from: its landing (app/funnel/visit.ts), once a step has been taken. */
  landing?: string;
}

/** Steps 1–3, in order: the field each one's buttons post, and its options. */
export const CHOICES = [
  { name: "service", options: SERVICES },
  { name: "timeframe", options: TIMEFRAMES },
  { name: "complexity", options: COMPLEXITIES },
] as const;

export const TEXT_FIELDS = ["description", "name", "companyName", "email", "phone"] as const;

/** A fresh wizard: step 1, nothing chosen, complexity "medium". Also the state after a send. */
export function resetState(): WizardState {
  return { step: 1, complexity: DEFAULT_COMPLEXITY, description: "", name: "", companyName: "", email: "", phone: "", reached: 1 };
}

/**
 * Every submit control posts what it shows: a text browser shows a button's value beside its
 * words ("(softwareDev) Software Development" in lynx), so the wizard's are `<input type="submit">`
 * whose value is their label (decision 0044). Back, Continue and Send post theirs under `intent`
 * (the rules read Back's; the wizard knows its send by Send's, use-wizard.ts), the choices theirs
 * under their own names (the rules read a label or a value), and step 5's Change controls
 * `change<N>` for step N, each showing "Change". Send's words are not here: an estimate's page
 * shares this module, and carries none of the wizard's texts (decision 0024).
 */
export const INTENT_FIELD = "intent";
export const BACK = "Back";
export const CHANGE_FIELD = "change";
/** Hidden state fields are prefixed (`state.step`, …) so they never collide with the visible ones. */
export const STATE_PREFIX = "state.";

/** The state as hidden fields; unset choices and empty texts are left out. */
export function stateToFields(state: WizardState): Record<string, string> {
  const fields: Record<string, string> = { [`${STATE_PREFIX}step`]: String(state.step), [`${STATE_PREFIX}complexity`]: state.complexity };
  if (state.service) fields[`${STATE_PREFIX}service`] = state.service;
  if (state.timeframe) fields[`${STATE_PREFIX}timeframe`] = state.timeframe;
  for (const name of TEXT_FIELDS) if (state[name] !== "") fields[`${STATE_PREFIX}${name}`] = state[name];
  if (state.review) fields[`${STATE_PREFIX}review`] = String(state.review);
  if (state.reached > 1) fields[`${STATE_PREFIX}reached`] = String(state.reached);
  if (state.landing) fields[`${STATE_PREFIX}landing`] = state.landing;
  return fields;
}

/**
 * How far the wizard may be: the first step whose answer is missing (steps 1 and 2, a choice), or
 * 5. Step 3 always has one (complexity starts at "medium") and step 4's description is optional.
 */
export function reachable(state: WizardState): Step {
  return !state.service ? 1 : !state.timeframe ? 2 : 5;
}

/**
 * Reads the hidden state of an untrusted post (or of the browser's saved answers) leniently:
 * unknown choices are dropped, anything but a string counts as absent, and the step is clamped to
 * what the values allow. No state fields: a fresh wizard. A text longer than its field allows is
 * kept, for the visitor to shorten (its step's check refuses it, saying how long it may be): boxes
 * cut nothing (decision 0044), and a post is at most 64 KB (server/form-posts.ts).
 */
export function parseState(fields: Readonly<Record<string, unknown>>): WizardState {
  const get = (name: string) => {
    const value = Object.hasOwn(fields, STATE_PREFIX + name) ? fields[STATE_PREFIX + name] : undefined;
    return typeof value === "string" ? value : undefined;
  };
  const state = resetState();
  for (const { name, options } of CHOICES) {
    const value = get(name);
    if (options.some((option) => option.value === value)) Object.assign(state, { [name]: value });
  }
  for (const name of TEXT_FIELDS) {
    const value = get(name);
    if (value !== undefined) state[name] = value;
  }
  const step = (name: string) => (/^[1-5]$/.test(get(name) ?? "") ? (Number(get(name)) as Step) : 1);
  state.step = Math.min(step("step"), reachable(state)) as Step;
  state.reached = step("reached");
  // Made a source, and checked, where it is counted (app/funnel/count.server.ts); here only bounded.
  const landing = get("landing");
  if (landing && landing.length <= LANDING_MAX) state.landing = landing;
  if (step("review") > state.step) state.review = step("review");
  return state;
}

/** The funnel's steps that `after` reaches for the first time in this visit (none after a reload, Back or a Change). */
export function newlyReached(before: WizardState, after: WizardState): FunnelEvent[] {
  const steps: FunnelEvent[] = [];
  for (let step = Math.max(2, before.reached + 1); step <= after.reached; step++) steps.push(String(step) as FunnelEvent);
  return steps;
}

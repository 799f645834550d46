import { type AppLoadContext } from "@remix-run/node";
import { keep, keptTexts, toThanks } from "~/forms/draft.server";
import { errorSummaryId } from "~/forms/field";
import { notTaken } from "~/forms/lead.server";
import { calculatorLead } from "./lead.server";
import { landingOfReferer, sourceOfLanding } from "~/funnel/count.server";
import { estimate } from "./pricing";
import { next, parseState } from "./rules";
import { DRAFT_PARAM, newlyReached, STEP_PARAM, stateToFields, WIZARD_ID } from "./state";

/**
 * A calculator post: every step without JavaScript, the send with it. The state comes from hidden
 * fields and is checked again here; the estimate the agency receives is computed here. Every
 * outcome but a lead not taken is a redirect to a GET (a step, with its errors, or the thanks).
 */
export async function calculatorAction(request: Request, fields: Record<string, string>, context: AppLoadContext) {
  const before = parseState(fields);
  const outcome = next(before, fields);
  // The funnel (decision 0036): each step this visit reaches for the first time, by the source of
  // its landing (which the state carries; without JavaScript, taken from the first post), the
  // same source the lead carries (decision 0041). Not waited for: a count never slows a step.
  outcome.state.landing ??= landingOfReferer(request);
  const source = sourceOfLanding(outcome.state.landing, request, context.sources);
  for (const event of newlyReached(before, outcome.state)) void context.countVisit(request, event, source);
  if (!outcome.ready) {
    // The step's page (`/?draft=<id>&step=<n>`) shows the visit's latest state at its own step, and opens at its mistakes if any.
    const { description, name, companyName, email, phone } = outcome.state;
    const [texts, errors] = keptTexts({ description, name, companyName, email, phone }, outcome.errors ?? null);
    const at = outcome.errors ? errorSummaryId("calc") : WIZARD_ID;
    const record = { fields: stateToFields({ ...outcome.state, ...texts }), errors };
    return keep(request, context, record, fields.draft, (id) => `/?${DRAFT_PARAM}=${id}&${STEP_PARAM}=${outcome.state.step}#${at}`);
  }
  const taken = await context.submitLead({ ...calculatorLead(outcome.ready, context.zar), source });
  // Not taken: stay on step 5 with everything typed (503, or 429 with Retry-After).
  if (!taken.ok) return notTaken({ form: "calculator" as const, state: outcome.state, problem: taken.problem }, taken);
  if (taken.first) void context.countVisit(request, "sent", source);
  // The receipt keeps the three choices and the figure the agency received, never what was typed.
  const { service, timeframe, complexity } = outcome.ready;
  const kept = { service, timeframe, complexity, estimate: estimate(outcome.ready) };
  return toThanks(request, context, { form: "calculator", anchor: WIZARD_ID, reference: taken.reference, draft: fields.draft, kept });
}

import { json, redirect, type AppLoadContext } from "@remix-run/node";
import type { FormProblem } from "~/context";
import type { FieldErrors } from "~/forms/limits";
import { notTaken } from "~/forms/lead.server";
import { calculatorLead } from "./lead.server";
import { next, parseState } from "./rules";

export const CALCULATOR_SENT = "/?sent=calculator#calculator";

/**
 * A calculator post: every step without JavaScript, the send with it. The state comes from hidden
 * fields and is checked again here; the estimate the agency receives is computed here.
 */
export async function calculatorAction(fields: Record<string, string>, { submitLead }: AppLoadContext) {
  const outcome = next(parseState(fields), fields);
  const answer = { form: "calculator" as const, state: outcome.state, errors: outcome.errors ?? (null as FieldErrors | null), problem: null as FormProblem | null };
  if (!outcome.ready) return json(answer, { status: outcome.errors ? 400 : 200 });
  const taken = await submitLead(calculatorLead(outcome.ready));
  // Not taken: stay on step 5 with everything typed.
  return taken.ok ? redirect(CALCULATOR_SENT, 303) : notTaken({ ...answer, problem: taken.problem }, taken);
}

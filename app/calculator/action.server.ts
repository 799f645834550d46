import { json, redirect, type AppLoadContext } from "@remix-run/node";
import type { CalculatorResult } from "~/components/calculator-wizard";
import { calculatorMessage } from "~/delivery/message.server";
import { next, parseState, type FormFields } from "./wizard";

export const CALCULATOR_SENT = "/?sent=calculator#calculator";

/**
 * A calculator post (JavaScript off: every step; on: the send). The state comes from hidden fields
 * and is re-parsed and re-validated here; the estimate the agency receives is computed here.
 */
export async function calculatorAction(fields: FormFields, { submitLead }: AppLoadContext) {
  const outcome = next(parseState(fields), fields);
  if (!outcome.ready) {
    return json<CalculatorResult>({ form: "calculator", state: outcome.state, errors: outcome.errors ?? null, problem: null }, { status: outcome.errors ? 400 : 200 });
  }
  const answer = await submitLead(calculatorMessage(outcome.ready));
  if (answer.ok) return redirect(CALCULATOR_SENT, 303);
  // Not stored: stay on step 5 with everything typed.
  return json<CalculatorResult>(
    { form: "calculator", state: outcome.state, errors: null, problem: answer.problem },
    { status: answer.problem === "rateLimited" ? 429 : 503, headers: answer.retryAfter ? { "Retry-After": String(answer.retryAfter) } : {} },
  );
}

import { json, redirect } from "@remix-run/node";
import type { CalculatorResult } from "~/components/calculator-wizard";
import { calculatorMessage } from "~/delivery/message.server";
import { getRelay } from "~/delivery/relay-instance.server";
import { next, parseState, type FormFields } from "./wizard";

export const CALCULATOR_SENT = "/?sent=calculator#calculator";

/**
 * A calculator post (JavaScript off: every step; on: the send). The state comes from hidden fields
 * and is re-parsed and re-validated here; the estimate the agency receives is computed here.
 */
export async function calculatorAction(fields: FormFields) {
  const outcome = next(parseState(fields), fields);
  if (!outcome.ready) {
    return json<CalculatorResult>({ form: "calculator", state: outcome.state, errors: outcome.errors ?? null, failed: false }, { status: outcome.errors ? 400 : 200 });
  }
  const delivery = await getRelay().deliver(calculatorMessage(outcome.ready));
  if (delivery.ok) return redirect(CALCULATOR_SENT, 303);
  return json<CalculatorResult>({ form: "calculator", state: outcome.state, errors: null, failed: true }, { status: 502 });
}

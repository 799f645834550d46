import { json, redirect } from "@remix-run/node";
import type { CalculatorResult } from "~/components/calculator-wizard";
import { calculatorMessage } from "~/delivery/message.server";
import { problemStatus, type FormPost, type Problem } from "~/server/form-post.server";
import { next, parseState, type WizardState } from "./wizard";

export const CALCULATOR_SENT = "/?sent=calculator#calculator";

const reply = (state: WizardState, problem: Problem) => json<CalculatorResult>({ form: "calculator", state, errors: null, problem }, { status: problemStatus(problem) });

/**
 * A calculator post (JavaScript off: every step; on: the send). The state comes from hidden fields
 * and is re-parsed and re-validated here; the estimate the agency receives is computed here.
 */
export async function calculatorAction(post: FormPost) {
  if (post.bot) return redirect(CALCULATOR_SENT, 303);
  const outcome = next(parseState(post.fields), post.fields);
  // Refused for now: stay on the posted step, keeping whatever was typed.
  if (post.overLimit) return reply({ ...outcome.state, step: parseState(post.fields).step }, "rateLimited");
  if (!outcome.ready) {
    return json<CalculatorResult>({ form: "calculator", state: outcome.state, errors: outcome.errors ?? null, problem: null }, { status: outcome.errors ? 400 : 200 });
  }
  const delivery = await post.deliver(calculatorMessage(outcome.ready));
  return delivery === "sent" ? redirect(CALCULATOR_SENT, 303) : reply(outcome.state, delivery);
}

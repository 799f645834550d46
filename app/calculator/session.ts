import { useLocation, useNavigate } from "@remix-run/react";
import { keep, kept } from "~/forms/tab-storage";
import { type Step, STEP_PARAM, stateToFields, WIZARD_ID, type WizardState } from "./state";

/**
 * With JavaScript the wizard's latest answers stay in this tab's session storage and each step is
 * an address of its own, `/?step=<n>#wizard`, so Back, Forward and reload find the answers there
 * and show them at the address's step, as the server's draft does for the pages without
 * JavaScript (decision 0025). Nothing a visitor types reaches the address. The storage itself is
 * shared with the contact form (app/forms/tab-storage.ts).
 */
export const ANSWERS_KEY = "calculator-wizard";

/** The receipt of this tab's latest send (its reference, and its estimate's link with the receipt), for the estimate's page to say so (routes/estimate.tsx). */
export const SENT_KEY = "sent";

/** The answers as hidden fields (`stateToFields`), for `parseState`; none: `{}`. */
export const savedAnswers = () => kept(ANSWERS_KEY);

/** Keeps the answers (null: forgets them, as after a send). */
export const saveAnswers = (state: WizardState | null) => keep(ANSWERS_KEY, state && stateToFields(state));

/**
 * Shows a step of the saved answers on the home page as a new history entry, as a step page
 * without JavaScript is one, with the services tab the page shows (no draft, receipt or thanks:
 * the answers are the browser's now).
 */
export function useShowStep() {
  const navigate = useNavigate();
  // The home page's services tab; elsewhere (the estimate's page) `service` is not a tab.
  const { pathname, search } = useLocation();
  const tab = pathname === "/" ? new URLSearchParams(search).get("service") : null;
  return (step: Step) => navigate(`/?${tab ? `service=${encodeURIComponent(tab)}&` : ""}${STEP_PARAM}=${step}#${WIZARD_ID}`);
}

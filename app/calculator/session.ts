import { useLocation, useNavigate, useSearchParams } from "@remix-run/react";
import { type Step, STEP_PARAM, stateToFields, WIZARD_ID, type WizardState } from "./state";

/**
 * With JavaScript the wizard's latest answers stay in this tab's session storage and each step is
 * an address of its own, `/?step=<n>#wizard`, so Back, Forward and reload find the answers there
 * and show them at the address's step, as the server's draft does for the pages without
 * JavaScript (decision 0025). Nothing a visitor types reaches the address.
 */
const KEY = "calculator-wizard";
// Kept in memory too: a browser that refuses storage (all cookies blocked) still walks the steps.
let latest: unknown;

/** The answers as hidden fields (`stateToFields`), for `parseState`; none: `{}`. */
export function savedAnswers(): Readonly<Record<string, unknown>> {
  try {
    latest ??= JSON.parse(sessionStorage.getItem(KEY) ?? "null");
  } catch {
    // unreadable: what is in memory, if anything
  }
  return Object(latest) as Record<string, unknown>; // anything but an object holds no answers
}

/** Keeps the answers (null: forgets them, as after a send). */
export function saveAnswers(state: WizardState | null) {
  latest = state && stateToFields(state);
  try {
    sessionStorage.setItem(KEY, JSON.stringify(latest));
  } catch {
    // kept in memory only
  }
}

/**
 * Shows a step of the saved answers on the home page as a new history entry, as a step page
 * without JavaScript is one, with the services tab the page shows (no draft, receipt or thanks:
 * the answers are the browser's now).
 */
export function useShowStep() {
  const navigate = useNavigate();
  // The home page's services tab; elsewhere (the estimate's page) `service` is not a tab.
  const [params] = useSearchParams();
  const tab = useLocation().pathname === "/" ? params.get("service") : null;
  return (step: Step) => navigate(`/?${tab ? `service=${encodeURIComponent(tab)}&` : ""}${STEP_PARAM}=${step}#${WIZARD_ID}`);
}

/**
 * Without JavaScript each wizard step is a post answered with a redirect to a GET of the step
 * (`/?draft=<id>&step=<n>#wizard`), so Back and reload never ask to send a form again. The
 * visit's latest state and the last step's errors wait in the load context's draft store under
 * that id (decision 0016); each step page shows that latest state at its own step, so the
 * browser's Back keeps everything, as the wizard's own Back button does.
 */
import type { AppLoadContext } from "@remix-run/node";
import type { FieldErrors } from "~/forms/limits";
import { type NextResult, parseState } from "./rules";
import { stateToFields, WIZARD_ID, type WizardState } from "./state";

export const DRAFT_PARAM = "draft";
const STEP_PARAM = "step";

/** What the home page's loader hands the wizard: a draft, one that is gone, or none asked for. */
export type DraftView = { id: string; state: WizardState; errors: FieldErrors | null } | { expired: true } | null;

/** Keeps a step's outcome (in the visit's draft, if the post named one) and gives the URL that renders it. */
export async function draftUrl({ drafts }: AppLoadContext, outcome: NextResult, previous: string | undefined): Promise<string> {
  const id = await drafts.save({ fields: stateToFields(outcome.state), errors: outcome.errors ?? null }, previous);
  return `/?${DRAFT_PARAM}=${id}&${STEP_PARAM}=${outcome.state.step}#${WIZARD_ID}`;
}

function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((m) => typeof m === "string"));
  return entries.length ? Object.fromEntries(entries) : null;
}

/** The draft a page's URL names, read leniently like any post (the store is trusted, not blindly). */
export async function loadDraft(request: Request, { drafts }: AppLoadContext): Promise<DraftView> {
  const params = new URL(request.url).searchParams;
  const id = params.get(DRAFT_PARAM);
  if (id === null) return null;
  const saved = (await drafts.load(id)) as { fields?: Record<string, unknown>; errors?: unknown } | undefined;
  if (typeof saved?.fields !== "object" || saved.fields === null) return { expired: true };
  // The page's own step, as far as the answers allow; the errors belong to the step they came from.
  const step = params.get(STEP_PARAM);
  const state = parseState(step === null ? saved.fields : { ...saved.fields, "state.step": step });
  return { id, state, errors: String(state.step) === saved.fields["state.step"] ? errorsOf(saved.errors) : null };
}

/**
 * Without JavaScript each wizard step is a post answered with a redirect to a GET of the step
 * (`/?draft=<id>#wizard`), so Back and reload never ask to send a form again. The step's state
 * and its errors wait in the load context's draft store under that id (decision 0015).
 */
import type { AppLoadContext } from "@remix-run/node";
import type { FieldErrors } from "~/forms/limits";
import { type NextResult, parseState } from "./rules";
import { stateToFields, WIZARD_ID, type WizardState } from "./state";

export const DRAFT_PARAM = "draft";

/** What the home page's loader hands the wizard: a draft, one that is gone, or none asked for. */
export type DraftView = { id: string; state: WizardState; errors: FieldErrors | null } | { expired: true } | null;

/** Keeps a step's outcome and gives the URL that renders it. */
export async function draftUrl({ drafts }: AppLoadContext, outcome: NextResult): Promise<string> {
  const id = await drafts.save({ fields: stateToFields(outcome.state), errors: outcome.errors ?? null });
  return `/?${DRAFT_PARAM}=${id}#${WIZARD_ID}`;
}

function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((m) => typeof m === "string"));
  return entries.length ? Object.fromEntries(entries) : null;
}

/** The draft a page's URL names, read leniently like any post (the store is trusted, not blindly). */
export async function loadDraft(request: Request, { drafts }: AppLoadContext): Promise<DraftView> {
  const id = new URL(request.url).searchParams.get(DRAFT_PARAM);
  if (id === null) return null;
  const saved = (await drafts.load(id)) as { fields?: unknown; errors?: unknown } | undefined;
  if (typeof saved?.fields !== "object" || saved.fields === null) return { expired: true };
  return { id, state: parseState(saved.fields as Record<string, unknown>), errors: errorsOf(saved.errors) };
}

/**
 * Without JavaScript each wizard step is a post answered with a redirect to a GET of the step
 * (`/?draft=<id>&step=<n>#wizard`), so Back and reload never ask to send a form again. The
 * visit's latest state and the last step's errors wait in the load context's draft store under
 * that id, owned by the visitor's browser (decisions 0016, 0020); each step page shows that
 * latest state at its own step, so the browser's Back keeps everything, as the wizard's own Back
 * button does. A sent request deletes its draft and leaves a receipt: the reference the server
 * issued and what was sent (the choices and the figure), which the thank-you page shows (and
 * nothing from its URL).
 */
import { type AppLoadContext, redirect } from "@remix-run/node";
import { errorsOf, keptTexts } from "~/forms/draft.server";
import { errorSummaryId } from "~/forms/field";
import { RECEIPT_PARAM } from "~/forms/receipt";
import type { FieldErrors } from "~/forms/limits";
import { visitor, visitorOwner } from "~/forms/visitor.server";
import { sentSummary } from "~/content/calculator";
import { type Choices, choicesFrom, estimateHref } from "./choices";
import { COMPLEXITIES, estimate, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import { type CalculatorRequest, type NextResult, parseState } from "./rules";
import { DRAFT_PARAM, STEP_PARAM, stateToFields, WIZARD_ID, type WizardState } from "./state";

/** What the home page's loader hands the wizard: a draft, one that is gone, or none asked for. */
export type DraftView = { id: string; state: WizardState; errors: FieldErrors | null } | { expired: true } | null;

/**
 * What the thanks show: only what the server itself issued or kept for this browser, never
 * anything from the URL.
 */
export interface Receipt {
  reference: string;
  /** What was sent, in a line, and its estimate's page: only while its figure is still the one the agency received. */
  summary?: string;
  estimate?: string;
  /** The operator's booking page (BOOKING_URL) carrying the reference; none when unset. */
  booking?: string;
}

/** What a receipt keeps: the reference, the three choices and the figure the agency received. */
type KeptReceipt = { reference: string; estimate: number } & Choices;

/**
 * The booking page with the reference, for the booking form to show: Cal.com fills its
 * "Additional notes" from `notes`, Calendly its first custom question from `a1`; each ignores the other.
 */
export function bookingHref(bookingUrl: string, reference: string): string {
  const url = new URL(bookingUrl);
  url.searchParams.set("notes", `Reference ${reference}`);
  url.searchParams.set("a1", reference);
  return url.href;
}

/** Keeps a step's outcome (in the visit's draft, if the post named one of this browser's) and redirects to its page. */
export async function toStep(request: Request, { drafts }: AppLoadContext, outcome: NextResult, previous: string | undefined) {
  const { owner, headers } = await visitor(request);
  const { description, name, companyName, email, phone } = outcome.state;
  const [texts, errors] = keptTexts({ description, name, companyName, email, phone }, outcome.errors ?? null);
  const id = await drafts.save(owner, { fields: stateToFields({ ...outcome.state, ...texts }), errors }, previous);
  // A step with mistakes opens at its error summary, in view at once (the wizard's card otherwise).
  const at = outcome.errors ? errorSummaryId("calc") : WIZARD_ID;
  return redirect(`/?${DRAFT_PARAM}=${id}&${STEP_PARAM}=${outcome.state.step}#${at}`, { status: 303, headers });
}

/** The request was sent: its draft goes, and the thanks get a receipt only this browser can open. */
export async function toThanks(
  request: Request,
  { drafts }: AppLoadContext,
  reference: string | undefined,
  draft: string | undefined,
  sent: CalculatorRequest,
) {
  const { owner, headers } = await visitor(request);
  if (draft !== undefined) await drafts.delete(owner, draft);
  const { service, timeframe, complexity } = sent;
  const kept: KeptReceipt | undefined = reference === undefined ? undefined : { reference, service, timeframe, complexity, estimate: estimate(sent) };
  const receipt = kept === undefined ? "" : `&${RECEIPT_PARAM}=${await drafts.save(owner, kept)}`;
  return redirect(`/?sent=calculator${receipt}#${WIZARD_ID}`, { status: 303, headers });
}

/** The draft a page's URL names, if this browser owns it, read leniently like any post (the store is trusted, not blindly). */
export async function loadDraft(request: Request, { drafts }: AppLoadContext): Promise<DraftView> {
  const params = new URL(request.url).searchParams;
  const id = params.get(DRAFT_PARAM);
  if (id === null) return null;
  const saved = (await drafts.load(await visitorOwner(request), id)) as { fields?: Record<string, unknown>; errors?: unknown } | undefined;
  if (typeof saved?.fields !== "object" || saved.fields === null) return { expired: true };
  // The page's own step, as far as the answers allow; the errors belong to the step they came from.
  const step = params.get(STEP_PARAM);
  const state = parseState(step === null ? saved.fields : { ...saved.fields, "state.step": step });
  return { id, state, errors: String(state.step) === saved.fields["state.step"] ? errorsOf(saved.errors) : null };
}

/**
 * The receipt a thank-you page's URL names, if this browser owns it, read leniently: what was sent
 * only when its choices are the calculator's own and still make the figure that was sent.
 */
export async function loadReceipt(request: Request, { drafts, bookingUrl }: AppLoadContext): Promise<Receipt | null> {
  const id = new URL(request.url).searchParams.get(RECEIPT_PARAM);
  if (id === null) return null;
  const saved = (await drafts.load(await visitorOwner(request), id)) as Partial<Record<keyof KeptReceipt, unknown>> | undefined;
  if (typeof saved?.reference !== "string") return null;
  const receipt: Receipt = { reference: saved.reference };
  const choices = choicesFrom((name) => saved[name]);
  if (choices && saved.estimate === estimate(choices)) {
    const labels = [optionOf(SERVICES, choices.service), optionOf(TIMEFRAMES, choices.timeframe), optionOf(COMPLEXITIES, choices.complexity)].map(
      (o) => o.label,
    );
    receipt.summary = sentSummary(labels.join(", "), formatUsd(saved.estimate));
    receipt.estimate = estimateHref(choices);
  }
  if (bookingUrl !== undefined) receipt.booking = bookingHref(bookingUrl, saved.reference);
  return receipt;
}

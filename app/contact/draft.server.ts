/**
 * Without JavaScript a contact form with mistakes is answered as a calculator step is (decision
 * 0016): a redirect to a GET of the home page, `/?contact=<id>#contact`, that shows the messages
 * beside what was typed, so Back and reload never offer to send the form again. What was typed
 * waits in the visitor's draft store, owned by their browser (decision 0020), and is deleted when
 * the message is sent.
 */
import { type AppLoadContext, redirect } from "@remix-run/node";
import { errorsOf, keptTexts } from "~/forms/draft.server";
import { errorSummaryId } from "~/forms/field";
import { RECEIPT_PARAM } from "~/forms/receipt";
import { CONTACT_SERVICES } from "~/content/services";
import type { FieldErrors } from "~/forms/limits";
import { visitor, visitorOwner } from "~/forms/visitor.server";
import { CONTACT_DRAFT_PARAM } from "./address";

const FIELDS = ["name", "email", "service", "message"] as const;
/** The longest landing a source is made of (app/funnel/count.server.ts): anything longer is direct, so not kept. */
const LANDING_MAX = 600;
export type ContactValues = Record<(typeof FIELDS)[number], string>;

/** What the home page's loader hands the form: this browser's draft (no id when it is not, or gone), or none asked for. */
export type ContactDraft = { id?: string; values: Partial<ContactValues>; errors: FieldErrors | null } | null;

/**
 * Keeps what was typed with its errors (in the visitor's earlier draft, if the post named one) and
 * redirects to the page showing them. The visit's landing (app/funnel/visit.ts) is kept with them:
 * without JavaScript it comes from the post's Referer, the landing page, and the post after this
 * one comes from the page of mistakes, whose address has no utm values (landingOfDraft).
 */
export async function toContactErrors(
  request: Request,
  { drafts }: AppLoadContext,
  values: ContactValues,
  errors: FieldErrors,
  previous: string | undefined,
  landing: string,
) {
  const { owner, headers } = await visitor(request);
  const { name, email, message } = values;
  const [texts, said] = keptTexts({ name, email, message }, errors);
  // The service only when it is one of the options.
  const kept = { ...texts, service: CONTACT_SERVICES.some((option) => option.value === values.service) ? values.service : "" };
  const id = await drafts.save(owner, { values: kept, errors: said, ...(landing.length <= LANDING_MAX && { landing }) }, previous);
  // The page opens at the form's error summary, in view at once.
  return redirect(`/?${CONTACT_DRAFT_PARAM}=${id}#${errorSummaryId("contact")}`, { status: 303, headers });
}

/** The landing a post's draft keeps (toContactErrors), if the post names one this browser owns. */
export async function landingOfDraft(request: Request, { drafts }: AppLoadContext, id: string | undefined): Promise<string | undefined> {
  if (id === undefined) return undefined;
  const saved = (await drafts.load(await visitorOwner(request), id)) as { landing?: unknown } | undefined;
  return typeof saved?.landing === "string" ? saved.landing : undefined;
}

/**
 * The message was sent: the draft it came from goes, and the thanks get a receipt with its
 * reference, the one the agency's message ends with, that only this browser can open (decision
 * 0020), as the calculator's do (app/calculator/draft.server.ts; the page's loader reads either).
 */
export async function toContactThanks(request: Request, { drafts }: AppLoadContext, reference: string | undefined, draft: string | undefined) {
  const { owner, headers } = await visitor(request);
  if (draft !== undefined) await drafts.delete(owner, draft);
  const receipt = reference === undefined ? "" : `&${RECEIPT_PARAM}=${await drafts.save(owner, { reference })}`;
  return redirect(`/?sent=contact${receipt}#contact`, { status: 303, headers });
}

/** The draft a page's URL names, if this browser owns it, read leniently; someone else's shows nothing. */
export async function loadContactDraft(request: Request, { drafts }: AppLoadContext): Promise<ContactDraft> {
  const id = new URL(request.url).searchParams.get(CONTACT_DRAFT_PARAM);
  if (id === null) return null;
  const saved = (await drafts.load(await visitorOwner(request), id)) as { values?: Record<string, unknown>; errors?: unknown } | undefined;
  if (typeof saved?.values !== "object" || saved.values === null) return { values: {}, errors: null };
  const values = Object.fromEntries(FIELDS.flatMap((name) => (typeof saved.values![name] === "string" ? [[name, saved.values![name]]] : [])));
  return { id, values, errors: errorsOf(saved.errors) };
}

/**
 * Without JavaScript a contact form with mistakes is answered as a calculator step is (decision
 * 0016): a redirect to a GET of the home page, `/?contact=<id>#contact`, that shows the messages
 * beside what was typed, so Back and reload never offer to send the form again. What was typed
 * waits in the visitor's draft store, owned by their browser (decision 0020), and is deleted when
 * the message is sent.
 */
import { type AppLoadContext, redirect } from "@remix-run/node";
import { errorsOf } from "~/forms/draft.server";
import { errorSummaryId } from "~/forms/field";
import { RECEIPT_PARAM } from "~/forms/receipt";
import { CONTACT_SERVICES } from "~/content/services";
import type { FieldErrors } from "~/forms/limits";
import { visitor, visitorOwner } from "~/forms/visitor.server";
import { CONTACT_DRAFT_PARAM } from "./address";

const FIELDS = ["name", "email", "service", "message"] as const;
export type ContactValues = Record<(typeof FIELDS)[number], string>;
/** The service is kept only when it is one of the options; a text whatever its length, for the visitor to shorten. */
const fits = (name: keyof ContactValues, value: string) => name !== "service" || CONTACT_SERVICES.some((option) => option.value === value);

/** What the home page's loader hands the form: this browser's draft (no id when it is not, or gone), or none asked for. */
export type ContactDraft = { id?: string; values: Partial<ContactValues>; errors: FieldErrors | null } | null;

/** Keeps what was typed with its errors (in the visitor's earlier draft, if the post named one) and redirects to the page showing them. */
export async function toContactErrors(request: Request, { drafts }: AppLoadContext, values: ContactValues, errors: FieldErrors, previous: string | undefined) {
  const { owner, headers } = await visitor(request);
  // A text too long is kept with its error (a post holds at most 64 KB; the store's budget is charged
  // to the client that saves, decision 0034).
  const kept = Object.fromEntries(FIELDS.map((name) => [name, fits(name, values[name]) ? values[name] : ""]));
  const id = await drafts.save(owner, { values: kept, errors }, previous);
  // The page opens at the form's error summary, in view at once.
  return redirect(`/?${CONTACT_DRAFT_PARAM}=${id}#${errorSummaryId("contact")}`, { status: 303, headers });
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

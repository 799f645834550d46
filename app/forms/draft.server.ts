/**
 * What the server keeps for the browser that posted a form (decisions 0016, 0020, 0027; the store:
 * server/drafts.ts), under an owner only that browser has (visitor.server.ts), so someone else's
 * link shows nothing. Without JavaScript, a calculator step or a contact form with mistakes is
 * answered with a redirect to a GET that shows what was kept, so Back and reload never send a form
 * again; after a send, the thanks show a receipt (the reference the server issued, never anything
 * from the URL). What a record holds is read back leniently: the store is trusted, not blindly.
 */
import { type AppLoadContext, redirect } from "@remix-run/node";
import { CONTACT_SERVICES } from "~/content/services";
import { errorSummaryId } from "./field";
import { characters, type FieldErrors, LIMITS } from "./limits";
import { CONTACT_DRAFT_PARAM, RECEIPT_PARAM } from "./receipt";
import { visitor, visitorOwner } from "./visitor.server";

/** Keeps `record` for this browser (in its earlier draft `previous`, when it owns it) and redirects (303) to the page `to` names for it. */
export async function keep(request: Request, { drafts }: AppLoadContext, record: object, previous: string | undefined, to: (id: string) => string) {
  const { owner, headers } = await visitor(request);
  const id = await drafts.save(owner, record, previous);
  return redirect(to(id), { status: 303, headers });
}

/** The record `id` names, if this browser owns it: an object (null when it is gone or another's, undefined when none is named). */
export async function ownRecord(request: Request, { drafts }: AppLoadContext, id: string | null | undefined) {
  if (id === null || id === undefined) return undefined;
  const saved = await drafts.load(await visitorOwner(request), id);
  return typeof saved === "object" && saved !== null ? (saved as Record<string, unknown>) : null;
}

/**
 * A form was sent: the draft it came from goes, and the thanks (`/?sent=<form>#<anchor>`) get a
 * receipt only this browser can open: the reference, and what else the form `kept`.
 */
export async function toThanks(
  request: Request,
  { drafts }: AppLoadContext,
  sent: { form: "calculator" | "contact"; anchor: string; reference: string | undefined; draft: string | undefined; kept?: object },
) {
  const { owner, headers } = await visitor(request);
  if (sent.draft !== undefined) await drafts.delete(owner, sent.draft);
  const receipt = sent.reference === undefined ? "" : `&${RECEIPT_PARAM}=${await drafts.save(owner, { ...sent.kept, reference: sent.reference })}`;
  return redirect(`/?sent=${sent.form}${receipt}#${sent.anchor}`, { status: 303, headers });
}

/** What the home page's loader hands the wizard: its draft's state with the step's errors, one that is gone, or none asked for. */
export type DraftView<State, More = object> = ({ id: string; state: State; errors: FieldErrors | null } & More) | { expired: string } | null;

/**
 * What the thanks show: the reference, what was sent in a line and its estimate's page (with the receipt), what happens next
 * (text the server sends, so the home page's script carries none of it), and the booking page (BOOKING_URL) with the reference.
 */
export interface Receipt {
  reference: string;
  summary?: string;
  estimate?: string;
  next?: string;
  booking?: string;
}

/** The receipt the thanks' URL names, if this browser owns it; `sent` says what else to show of what the form kept. */
export async function loadReceipt(
  request: Request,
  context: AppLoadContext,
  sent: (kept: Record<string, unknown>, id: string) => Pick<Receipt, "summary" | "estimate" | "next">,
): Promise<Receipt | null> {
  const id = new URL(request.url).searchParams.get(RECEIPT_PARAM);
  const saved = await ownRecord(request, context, id);
  if (typeof saved?.reference !== "string") return null;
  const booking = context.bookingUrl === undefined ? {} : { booking: bookingHref(context.bookingUrl, saved.reference) };
  return { reference: saved.reference, ...sent(saved, id!), ...booking };
}

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

const CONTACT_FIELDS = ["name", "email", "service", "message"] as const;
export type ContactValues = Record<(typeof CONTACT_FIELDS)[number], string>;
/** What the home page's loader hands the contact form: this browser's draft (no id when it is not, or gone), or none asked for. */
export type ContactDraft = { id?: string; values: Partial<ContactValues>; errors: FieldErrors | null } | null;
/** The longest landing a source is made of (app/funnel/count.server.ts): anything longer counts as other, so is not kept. */
const LANDING_MAX = 600;

/**
 * A contact form with mistakes: what was typed and the messages, and the visit's landing, which
 * the next post (from the page of mistakes, whose address has no utm values) reads back (landingOfDraft).
 */
export function toContactErrors(
  request: Request,
  context: AppLoadContext,
  values: ContactValues,
  errors: FieldErrors,
  previous: string | undefined,
  landing: string,
) {
  const [texts, said] = keptTexts({ name: values.name, email: values.email, message: values.message }, errors);
  const service = CONTACT_SERVICES.some((option) => option.value === values.service) ? values.service : "";
  const record = { values: { ...texts, service }, errors: said, ...(landing.length <= LANDING_MAX && { landing }) };
  return keep(request, context, record, previous, (id) => `/?${CONTACT_DRAFT_PARAM}=${id}#${errorSummaryId("contact")}`);
}

/** The landing a post's draft keeps (toContactErrors), if the post names one this browser owns. */
export async function landingOfDraft(request: Request, context: AppLoadContext, id: string | undefined): Promise<string | undefined> {
  const saved = await ownRecord(request, context, id);
  return typeof saved?.landing === "string" ? saved.landing : undefined;
}

/** The contact draft a page's URL names; someone else's, or one gone, shows nothing. */
export async function loadContactDraft(request: Request, context: AppLoadContext): Promise<ContactDraft> {
  const id = new URL(request.url).searchParams.get(CONTACT_DRAFT_PARAM);
  const saved = await ownRecord(request, context, id);
  if (saved === undefined) return null;
  const values = saved?.values;
  if (typeof values !== "object" || values === null) return { values: {}, errors: null };
  const kept = Object.entries(values).filter(([name, value]) => (CONTACT_FIELDS as readonly string[]).includes(name) && typeof value === "string");
  return { id: id!, values: Object.fromEntries(kept), errors: errorsOf(saved!.errors) };
}

/**
 * What a draft keeps of the texts a post carried (decision 0044): every text the check takes,
 * whole; one too long too (no box cuts a paste, and the visitor shortens it on the page of
 * mistakes), up to half again its bound in UTF-16 units as the store holds it. Past that a text too
 * long is not kept, and its message says so: a draft of texts too long stays within the size the
 * store's budget allows each of one client's posts (decision 0034); valid texts of emoji may take
 * up to twice it, which a client's share of the budget absorbs.
 */
export function keptTexts<Name extends "description" | "message" | "name" | "companyName" | "email" | "phone">(
  texts: Record<Name, string>,
  errors: FieldErrors | null,
) {
  const kept = { ...texts };
  const said = errors && { ...errors };
  for (const name of Object.keys(texts) as Name[]) {
    const bound: number = name === "phone" ? LIMITS.phoneMax : LIMITS[name as Exclude<Name, "phone">];
    if (characters(kept[name]) <= bound || kept[name].length <= bound * 1.5) continue;
    kept[name] = "";
    if (said?.[name]) said[name] = said[name].map((message) => `${message}, too many to keep here`);
  }
  return [kept, said] as const;
}

/** Field errors kept in a draft, read leniently: only lists of strings, none: null. */
export function errorsOf(value: unknown): FieldErrors | null {
  if (typeof value !== "object" || value === null) return null;
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((message) => typeof message === "string"),
  );
  return entries.length ? Object.fromEntries(entries) : null;
}

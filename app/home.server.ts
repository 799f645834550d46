import { type ActionFunctionArgs, type AppLoadContext, json, type LoaderFunctionArgs } from "@remix-run/node";
import { calculatorAction } from "~/calculator/action.server";
import { choicesFrom, estimateHref } from "~/calculator/choices";
import { COMPLEXITIES, estimate, formatPrice, optionOf, SERVICES, TIMEFRAMES } from "~/calculator/pricing";
import { DRAFT_PARAM, parseState, STEP_PARAM, type WizardState } from "~/calculator/state";
import { contactAction } from "~/contact/action.server";
import { expiredNote, nextSteps, sentSummary, talkNow } from "~/content/calculator";
import { type Levels, LEVELS } from "~/content/levels";
import { type DraftView, errorsOf, loadContactDraft, loadReceipt, ownRecord, type Receipt } from "~/forms/draft.server";
import { RECEIPT_PARAM } from "~/forms/receipt";
import { cacheHeaders, hasPrivateQuery } from "~/utils/cache-headers";
import { agencyJsonLd } from "~/utils/structured-data.server";

/**
 * The home page's server half (app/routes/_index.tsx re-exports it). One module, so the browser's
 * copy of the page has a single empty stand-in for it rather than one per server import.
 */

/**
 * The calculator's step without JavaScript (`?draft=<id>`, decision 0016), a sent request's
 * receipt (`?receipt=<id>`) and the contact form's mistakes without JavaScript (`?contact=<id>`):
 * one visitor's own page, never kept by a shared cache. Without them the page is the same for
 * everyone.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const [draft, found, contact] = await Promise.all([
    loadDraft(request, context),
    loadReceipt(request, context, (kept, id) => (new URL(request.url).searchParams.get("sent") === "calculator" ? calculatorSent(kept, id, context) : {})),
    loadContactDraft(request, context),
  ]);
  // The thanks say what happens next even when the receipt cannot be read (cookies refused, another browser, expired).
  const receipt = found ?? (new URL(request.url).searchParams.get("sent") === "calculator" ? ({ next: nextStep(context) } as Partial<Receipt>) : null);
  // Private whenever the address names a visitor's record, found or not: the answer is that visitor's.
  return json({ draft, receipt, contact, jsonLd: agencyJsonLd() }, hasPrivateQuery(request.url) ? { headers: { "Cache-Control": cacheHeaders.private } } : {});
}

/** The calculator's draft the page's URL names, at the page's own step as far as the answers allow; its errors belong to the step they came from. */
async function loadDraft(request: Request, context: AppLoadContext): Promise<DraftView<WizardState, { levels?: Levels }>> {
  const params = new URL(request.url).searchParams;
  const id = params.get(DRAFT_PARAM);
  const saved = await ownRecord(request, context, id);
  if (saved === undefined) return null;
  const fields = saved?.fields as Record<string, unknown> | undefined;
  if (typeof fields !== "object" || fields === null) return { expired: expiredNote };
  const step = params.get(STEP_PARAM);
  const state = parseState(step === null ? fields : { ...fields, "state.step": step });
  const errors = String(state.step) === fields["state.step"] ? errorsOf(saved!.errors) : null;
  // Steps 2 and 3 show a line on each level for the service chosen: here with the page, in the browser with the rules.
  return { id: id!, state, errors, ...(state.step === 2 || state.step === 3 ? { levels: LEVELS[state.service!] } : {}) };
}

/**
 * What a calculator's receipt says was sent: only while its choices are the calculator's own and still make the figure the agency
 * received. Its link is the estimate's page with the receipt, which says to this browser alone that it was sent (estimate-page.server.ts).
 * What happens next, and without a booking page the lead-in to the agency's phone and email: the server's words (calculator-wizard.tsx).
 */
const nextStep = ({ bookingUrl }: AppLoadContext) => (bookingUrl ? nextSteps : `${nextSteps} ${talkNow}`);

function calculatorSent(kept: Record<string, unknown>, id: string, context: AppLoadContext) {
  const next = nextStep(context);
  const choices = choicesFrom((name) => kept[name]);
  if (!choices || kept.estimate !== estimate(choices)) return { next };
  const options = [optionOf(SERVICES, choices.service), optionOf(TIMEFRAMES, choices.timeframe), optionOf(COMPLEXITIES, choices.complexity)];
  const summary = sentSummary(options.map((option) => option.label).join(", "), formatPrice(kept.estimate, context.zar));
  return { summary, estimate: `${estimateHref(choices)}&${RECEIPT_PARAM}=${id}`, next };
}

/**
 * Both of the page's forms post here and say which they are in a hidden `formName` field. The
 * server has checked the body before (server/form-posts.ts); a urlencoded form holds only strings.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const fields = Object.fromEntries(await request.formData()) as Record<string, string>;
  switch (fields.formName) {
    case "calculator":
      return calculatorAction(request, fields, context);
    case "contact":
      return contactAction(request, fields, context);
    default:
      throw new Response("That form is not one of ours.", { status: 400 });
  }
}

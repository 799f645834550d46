import { type ActionFunctionArgs, json, type LoaderFunctionArgs } from "@remix-run/node";
import { calculatorAction } from "~/calculator/action.server";
import { loadDraft, loadReceipt } from "~/calculator/draft.server";
import { contactAction } from "~/contact/action.server";
import { loadContactDraft } from "~/contact/draft.server";
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
  const [draft, receipt, contact] = await Promise.all([loadDraft(request, context), loadReceipt(request, context), loadContactDraft(request, context)]);
  // Private whenever the address names a visitor's record, found or not: the answer is that visitor's.
  return json({ draft, receipt, contact, jsonLd: agencyJsonLd() }, hasPrivateQuery(request.url) ? { headers: { "Cache-Control": cacheHeaders.private } } : {});
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

import { type AppLoadContext, json } from "@remix-run/node";
import { ownRecord } from "~/forms/draft.server";
import { RECEIPT_PARAM } from "~/forms/receipt";
import { cacheHeaders } from "~/utils/cache-headers";
import { choicesFrom, estimateHref } from "./choices";

/**
 * What an estimate's page needs from its address: the three choices and its own path. Anything
 * but three known choices is a 404 that repeats nothing of the address. With a receipt (`&receipt=<id>`,
 * the thanks' link without JavaScript), this browser's own page: the reference of the request it sent with
 * these choices, when that receipt is its own and of them; anyone else gets the public page.
 */
export async function loadEstimate(request: Request, context: AppLoadContext) {
  const params = new URL(request.url).searchParams;
  const choices = choicesFrom((name) => params.get(name));
  if (choices === null) throw new Response(null, { status: 404 });
  const path = estimateHref(choices);
  const receipt = await ownRecord(request, context, params.get(RECEIPT_PARAM));
  const of = receipt && choicesFrom((name) => receipt[name]);
  const sent = of && typeof receipt!.reference === "string" && estimateHref(of) === path ? receipt!.reference : null;
  return json({ choices, path, ...(sent && { sent }) }, receipt === undefined ? {} : { headers: { "Cache-Control": cacheHeaders.private } });
}

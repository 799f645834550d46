import { renderToStaticMarkup } from "react-dom/server";
import { Breakdown } from "./calculator-wizard";
import { choicesFrom, estimateHref } from "./choices";

/**
 * What an estimate's page needs from its address: the three choices, its own path, and the
 * wizard's breakdown of them as markup. The breakdown is static, so it is rendered here on the
 * server: the page then loads none of the wizard's code, and the home page's scripts stay as they
 * are (decision 0024). Anything but three known choices is a 404 that repeats nothing of the address.
 */
export function loadEstimate(request: Request) {
  const params = new URL(request.url).searchParams;
  const choices = choicesFrom((name) => params.get(name));
  if (choices === null) throw new Response(null, { status: 404 });
  return { choices, path: estimateHref(choices), breakdown: renderToStaticMarkup(<Breakdown state={choices} />) };
}

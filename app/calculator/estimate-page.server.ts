import { choicesFrom, estimateHref } from "./choices";

/**
 * What an estimate's page needs from its address: the three choices and its own path. Anything
 * but three known choices is a 404 that repeats nothing of the address.
 */
export function loadEstimate(request: Request) {
  const params = new URL(request.url).searchParams;
  const choices = choicesFrom((name) => params.get(name));
  if (choices === null) throw new Response(null, { status: 404 });
  return { choices, path: estimateHref(choices) };
}

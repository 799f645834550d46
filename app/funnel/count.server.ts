/**
 * A visit's source, worked out on the server from its landing (app/funnel/visit.ts) by the one
 * rule in app/funnel/source.ts: the funnel counts it and the lead carries it. What it was made of
 * (the utm values, the referrer) is not kept.
 */
import { LANDING_MAX } from "./visit";
import { AD_CLICKS, classify, NOT_KNOWN, type Source, type SourceSettings } from "./source";

/** The only query values read (their order: classify's). */
const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"];

/**
 * The source of a landing page's query (its utm values, and whether an ad click id was there) and
 * referring host. `hosts`: the one the request names (Host, or a trusted proxy's X-Forwarded-Host:
 * the server drops an untrusted one), beside SITE_ORIGIN's. Never a header only some requests keep
 * (the server takes Origin off an action's request): an action, the beacon and a landing see one site alike.
 */
export function sourceOfQuery(params: URLSearchParams, referrer: string, hosts: readonly string[], settings: SourceSettings): Source {
  const adClick = Object.keys(AD_CLICKS).find((name) => params.has(name));
  return classify(
    UTM.map((name) => params.get(name) ?? ""),
    referrer,
    [...hosts, ...(settings.ownHosts ?? [])],
    settings,
    adClick,
  );
}

/**
 * The source of a visit's landing: "<the landing page's query> <the referring host>" (root.tsx
 * writes it; a query has no space). Of the query only the utm values and whether an ad click id
 * was there are read. None is direct, an overlong one other.
 */
export function sourceOfLanding(landing: unknown, request: Request, settings: SourceSettings): Source {
  if (typeof landing !== "string") return { kind: "direct" };
  if (landing.length > LANDING_MAX) return { kind: "other" };
  const [query = "", referrer = ""] = landing.split(" ");
  return sourceOfQuery(new URLSearchParams(query), referrer, [new URL(request.url).host], settings);
}

/**
 * A landing as a post without JavaScript shows it: the utm values of the page the form was on
 * (its Referer, our own page) and the name of its ad click id, never the id; the referring site is
 * not known there. Only these are kept (the calculator's draft carries the landing between steps).
 */
export function landingOfReferer(request: Request): string {
  let page = new URLSearchParams();
  try {
    page = new URL(request.headers.get("referer") ?? "").searchParams;
  } catch {
    // no page: nothing but that the referrer is not known
  }
  const kept = new URLSearchParams();
  for (const name of UTM) if (page.has(name)) kept.set(name, page.get(name)!);
  const adClick = Object.keys(AD_CLICKS).find((name) => page.has(name));
  if (adClick) kept.set(adClick, "");
  return `?${kept} ${NOT_KNOWN}`;
}

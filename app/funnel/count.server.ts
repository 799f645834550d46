/**
 * A visit's source, worked out on the server from its landing (app/funnel/visit.ts) by the one
 * rule in app/funnel/source.ts: the funnel counts it and the lead carries it. What it was made of
 * (the utm values, the referrer) is not kept.
 */
import { AD_CLICKS, classify, NOT_KNOWN, type Source, type SourceSettings } from "./source";

/** This site's host as the browser addressed it (a post's Origin), else the request's. */
const ownHost = (request: Request) => {
  try {
    return new URL(request.headers.get("origin") ?? request.url).host;
  } catch {
    return new URL(request.url).host;
  }
};

/**
 * The source of a visit's landing: "utm_source/utm_medium/utm_campaign referrer-host ad-click"
 * (root.tsx writes it; the last part is the name of an ad click id the address had, never its
 * value); none is direct, an overlong one other.
 */
export function sourceOfLanding(landing: unknown, request: Request, settings: SourceSettings): Source {
  if (typeof landing !== "string") return { kind: "direct" };
  if (landing.length > 600) return { kind: "other" }; // longer than any the rule names: not read
  const [utm = "", referrer = "", adClick = ""] = landing.split(" ");
  return classify(utm.split("/").slice(0, 3), referrer, ownHost(request), settings, adClick);
}

/**
 * A landing as a post without JavaScript shows it: the utm_* values and ad click id of the page
 * the form was on (its Referer, our own page). The referring site is not known there.
 */
export function landingOfReferer(request: Request): string {
  let page = new URLSearchParams();
  try {
    page = new URL(request.headers.get("referer") ?? "").searchParams;
  } catch {
    // no page: nothing but that the referrer is not known
  }
  const utm = ["source", "medium", "campaign"].map((name) => (page.get(`utm_${name}`) ?? "").replaceAll("/", "-").replaceAll(" ", "-"));
  return `${utm.join("/")} ${NOT_KNOWN} ${Object.keys(AD_CLICKS).find((name) => page.has(name)) ?? ""}`;
}

/**
 * A visit's source, worked out on the server from its landing (app/funnel/visit.ts) by the one
 * rule in app/funnel/source.ts: the funnel counts it and the lead carries it. What it was made of
 * (the utm values, the referrer) is not kept.
 */
import { classify, type Source, type SourceSettings } from "./source";

/** This site's host as the browser addressed it (a post's Origin), else the request's. */
const ownHost = (request: Request) => {
  try {
    return new URL(request.headers.get("origin") ?? request.url).host;
  } catch {
    return new URL(request.url).host;
  }
};

/** The source of a visit's landing: "utm_source/utm_medium/utm_campaign referrer-host"; anything malformed is direct. */
export function sourceOfLanding(landing: unknown, request: Request, settings: SourceSettings): Source {
  if (typeof landing !== "string" || landing.length > 600) return { kind: "direct" };
  const [utm = "", referrer = ""] = landing.split(" ");
  return classify(utm.split("/").slice(0, 3), referrer, ownHost(request), settings);
}

/**
 * A landing as a post without JavaScript shows it: the utm_* values of the page the form was on
 * (its Referer, our own page; the referring site itself is not known there).
 */
export function landingOfReferer(request: Request): string {
  try {
    const page = new URL(request.headers.get("referer") ?? "").searchParams;
    return `${["source", "medium", "campaign"].map((name) => (page.get(`utm_${name}`) ?? "").replaceAll("/", "-").replaceAll(" ", "-")).join("/")} `;
  } catch {
    return "";
  }
}

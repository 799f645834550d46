/**
 * A visit's source, worked out on the server from its landing (decision 0036): a campaign
 * ("utm_source/utm_medium/utm_campaign"), a referring site's host, or "direct". Only the source
 * is counted; what it was made from is not kept.
 */
const PART = /^[a-z0-9._~-]{1,40}$/;
/** A source as it is counted. */
export const isSource = (value: unknown): value is string =>
  typeof value === "string" && value.length <= 122 && value.split("/").every((part, i, all) => all.length <= 3 && (PART.test(part) || (i > 0 && part === "")));

/**
 * One utm value as a source part: lower case, anything odd a hyphen, at most 40 characters. A
 * value that may name a person (an e-mail address, a run of digits such as a phone number or a
 * subscriber's id, which mail tools put in campaign links) counts as "other", never as written.
 */
const part = (value: string | null | undefined) =>
  /@|\d{5,}|%40/i.test(value ?? "")
    ? "other"
    : (value ?? "")
        .toLowerCase()
        .replace(/[^a-z0-9._~-]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40);
const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^www\./, "")
    .replace(/:\d+$/, "");

/** The source of three utm values and a referring host; a referrer on `ownHost` (our own pages) is none. */
export function sourceOf(utm: readonly (string | null | undefined)[], referrerHost: string, ownHost: string): string {
  const parts = utm.map(part);
  if (parts[0]) return parts.join("/").replace(/\/+$/, "");
  const host = bare(referrerHost);
  return host && host !== bare(ownHost) && isSource(host) ? host : "direct";
}

/** This site's host as the browser addressed it (a post's Origin), else the request's. */
const ownHost = (request: Request) => {
  try {
    return new URL(request.headers.get("origin") ?? request.url).host;
  } catch {
    return new URL(request.url).host;
  }
};

/** The source of a visit's landing (app/funnel/visit.ts); anything malformed is "direct". */
export function sourceOfLanding(landing: unknown, request: Request): string {
  if (typeof landing !== "string" || landing.length > 600) return "direct";
  const [utm = "", referrer = ""] = landing.split(" ");
  return sourceOf(utm.split("/").slice(0, 3), referrer, ownHost(request));
}

/**
 * A landing as a post without JavaScript shows it: the utm_* values of the page the form was on
 * (its Referer, our own page; the referring site itself is not known there).
 */
export function landingOfReferer(request: Request): string {
  try {
    const page = new URL(request.headers.get("referer") ?? "").searchParams;
    return `${["source", "medium", "campaign"].map((name) => page.get(`utm_${name}`) ?? "").join("/")} `;
  } catch {
    return "";
  }
}

/**
 * The calculator's funnel, as the browser and the server both see it (decision 0036): what is
 * counted, the device classes, and a visit's source. Counts only: nothing here names a visitor.
 */

/** Steps 2–5 reached, a calculator request sent, a contact message sent. */
export const FUNNEL_EVENTS = ["2", "3", "4", "5", "sent", "contact"] as const;
export type FunnelEvent = (typeof FUNNEL_EVENTS)[number];

export const DEVICES = ["phone", "tablet", "desktop"] as const;
export type Device = (typeof DEVICES)[number];

/** Where the browser posts a step it reached (app/routes/steps.ts); the field names it posts. */
export const FUNNEL_PATH = "/steps";
export const VISIT_FIELDS = { event: "event", device: "visit.device", source: "visit.source" } as const;

/** The viewport's class: the CSS breakpoints' idea of a phone and a tablet. */
export const deviceOfWidth = (width: number): Device => (width < 600 ? "phone" : width < 1024 ? "tablet" : "desktop");

const PART = /^[a-z0-9._~-]{1,40}$/;
/** A source as it is counted: "direct", a referring host, or "utm_source/utm_medium/utm_campaign". */
export const isSource = (value: unknown): value is string =>
  typeof value === "string" && value.length <= 122 && value.split("/").every((part, i, all) => all.length <= 3 && (PART.test(part) || (i > 0 && part === "")));

/** One utm value as a source part: lower case, anything odd a hyphen, at most 40 characters. */
const part = (value: string | null) =>
  (value ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);

/**
 * Where a visit came from: the landing address's utm_source (with its medium and campaign), else
 * the referring site's host (without "www."), else "direct". `referrer` is the browser's
 * document.referrer ("" without one); a referrer on `landing`'s own host is not a source.
 */
export function sourceOf(landing: URL, referrer = ""): string {
  const utm = ["utm_source", "utm_medium", "utm_campaign"].map((name) => part(landing.searchParams.get(name)));
  if (utm[0]) return utm.join("/").replace(/\/+$/, "");
  try {
    const host = new URL(referrer).hostname.replace(/^www\./, "");
    if (host !== landing.hostname.replace(/^www\./, "") && isSource(host)) return host;
  } catch {
    // no referrer, or not a URL
  }
  return "direct";
}

/**
 * The calculator's funnel, as the browser and the server both see it (decision 0036): what is
 * counted, the device classes, and what a page posts. Counts only: nothing here names a visitor.
 */

/** Steps 2–5 reached, a calculator request sent, a contact message sent. */
export const FUNNEL_EVENTS = ["2", "3", "4", "5", "sent", "contact"] as const;
export type FunnelEvent = (typeof FUNNEL_EVENTS)[number];

export const DEVICES = ["phone", "tablet", "desktop"] as const;
export type Device = (typeof DEVICES)[number];

/**
 * Where the browser posts a step it reached (server/funnel-beacon.ts), and its fields. A visit's
 * landing is the landing page's query, a space, and the referring site's host: root.tsx keeps it in the tab under LANDING_KEY, the wizard's state carries it, and
 * the server makes a source of it (app/funnel/count.server.ts) and keeps only that.
 */
export const FUNNEL_PATH = "/steps";
export const VISIT_FIELDS = { event: "event", landing: "visit.landing" } as const;
const LANDING_KEY = "visit-landing";
/** A landing's longest: a landing page's query with its ad click ids (a gclid is about 100 characters). */
export const LANDING_MAX = 2_000;

/** The tab's landing ("" when there is none, or storage is refused). */
export function landing(): string {
  try {
    return sessionStorage.getItem(LANDING_KEY) ?? "";
  } catch {
    return "";
  }
}

/**
 * A beacon per step a visit reached for the first time (decision 0036), with its landing. It never
 * waits and never fails a step: a beacon that fails is simply not counted. Here, not loaded on
 * first use: a module of its own made this one a chunk of its own too, which cost the home page
 * 118 B more than these lines (perf/README.md, 2026-11-26).
 */
export function countSteps(events: FunnelEvent[], landing = "") {
  for (const event of events) {
    try {
      navigator.sendBeacon(FUNNEL_PATH, new URLSearchParams({ [VISIT_FIELDS.event]: event, [VISIT_FIELDS.landing]: landing }));
    } catch {
      // not counted
    }
  }
}

import { deviceOfWidth, FUNNEL_PATH, type FunnelEvent, sourceOf, VISIT_FIELDS } from "./visit";

/**
 * The browser's side of the funnel (decision 0036): the visit's source, worked out once on the
 * page the visit landed on and kept for the tab's session, and a beacon per step reached. Nothing
 * is stored that names the visitor; a beacon that fails is simply not counted.
 */
const KEY = "visit-source";
let source: string | undefined;

/** Called once on the landing page (root.tsx): its address and referrer say where the visit came from. */
export function rememberSource() {
  try {
    source = sessionStorage.getItem(KEY) ?? undefined;
    if (!source) sessionStorage.setItem(KEY, (source = sourceOf(new URL(location.href), document.referrer)));
  } catch {
    source ??= sourceOf(new URL(location.href), document.referrer); // storage refused: this page's view
  }
}

export const landingSource = () => source ?? "direct";
export const device = () => deviceOfWidth(innerWidth);

/** Counts each step this visit reached for the first time; never waits, never fails a step. */
export function countSteps(events: FunnelEvent[]) {
  for (const event of events) {
    try {
      navigator.sendBeacon(
        FUNNEL_PATH,
        new URLSearchParams({ [VISIT_FIELDS.event]: event, [VISIT_FIELDS.device]: device(), [VISIT_FIELDS.source]: landingSource() }),
      );
    } catch {
      // not counted
    }
  }
}

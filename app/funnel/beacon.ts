import { FUNNEL_PATH, type FunnelEvent, VISIT_FIELDS } from "./visit";

/**
 * A beacon per step a visit reached for the first time (decision 0036), with its landing: loaded
 * by the wizard when it first has one to send. It never waits and never fails a step: a beacon
 * that fails is simply not counted.
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

import type { ActionFunctionArgs } from "@remix-run/node";
import { sourceOfLanding } from "~/funnel/count.server";
import { FUNNEL_EVENTS, type FunnelEvent, VISIT_FIELDS } from "~/funnel/visit";

/** Steps 2–5 only: a send and a contact message are counted where the server takes them. */
const STEPS: readonly string[] = FUNNEL_EVENTS.slice(0, 4);

/**
 * POST /steps: the wizard's beacon when a visit reaches a step in the browser (countSteps in app/funnel/visit.ts).
 * Counted, never answered with anything: 204 whatever was posted.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const fields = Object.fromEntries(await request.formData());
  const event = fields[VISIT_FIELDS.event];
  if (typeof event === "string" && STEPS.includes(event)) {
    await context.countVisit(request, event as FunnelEvent, sourceOfLanding(fields[VISIT_FIELDS.landing], request, context.sources));
  }
  return new Response(null, { status: 204, headers: { "Cache-Control": "private, no-store" } });
}

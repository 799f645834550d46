/**
 * POST /steps (FUNNEL_PATH): the wizard's beacon when a visit reaches a step in the browser
 * (countSteps in app/funnel/visit.ts, decision 0036). Counted, never answered with anything: 204
 * whatever was posted. formPosts (form-posts.ts) has checked the post first, with the funnel's own
 * rate limit.
 *
 * The server's, not a Remix route: no person opens it, and as a route (an action only) Remix
 * answered a GET of /steps with its own error, a 400 `{"message":"Unexpected Server Error"}`,
 * where any other path the site does not have gets its 404 page; and Remix's browser code, which
 * knows every route, could not have taken over a 404 page there. Here, a GET of /steps is an
 * unknown path like any other (decision 0044).
 */
import type { Request as ExpressRequest, RequestHandler } from "express";
import type { Source, SourceSettings } from "~/funnel/source";
import { sourceOfLanding } from "~/funnel/count.server";
import { FUNNEL_EVENTS, type FunnelEvent, VISIT_FIELDS } from "~/funnel/visit";
import { type CheckedPost, requestHost } from "./form-posts";

/** Steps 2–5 only: a send and a contact message are counted where the server takes them. */
const STEPS: readonly string[] = FUNNEL_EVENTS.slice(0, 4);

/**
 * The beacon as the funnel reads a request: its headers (the user agent's device class, a bot, its
 * Origin) and its address, as Remix's Express adapter makes it (the host a trusted proxy names).
 */
function fetchRequest(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
  return new Request(new URL(req.originalUrl, `${req.protocol}://${requestHost(req)}`), { method: "POST", headers });
}

export function funnelBeacon({
  count,
  sources,
}: {
  /** Counts one step for the request's visit (server/funnel.ts, with the client's bucket). */
  count(req: ExpressRequest, request: Request, event: FunnelEvent, source: Source): Promise<void>;
  /** What the operator names as sources (CAMPAIGNS, REFERRER_SITES). */
  sources: SourceSettings;
}): RequestHandler {
  return async (req, res, next) => {
    const form = res.locals.form as CheckedPost | undefined;
    // Only a server mounted wrongly gets here: say so rather than count an unchecked post.
    if (!form) return next(new Error(`POST ${req.path} reached the funnel's beacon without passing formPosts (server/form-posts.ts)`));
    const event = form.fields[VISIT_FIELDS.event];
    if (event !== undefined && STEPS.includes(event)) {
      const request = fetchRequest(req);
      try {
        await count(req, request, event as FunnelEvent, sourceOfLanding(form.fields[VISIT_FIELDS.landing], request, sources));
      } catch (error) {
        return next(error);
      }
    }
    res.status(204).set("Cache-Control", "private, no-store").end();
  };
}

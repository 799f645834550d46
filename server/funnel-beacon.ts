/**
 * POST /steps: the wizard's beacon when a visit reaches a step in the browser (decision 0036),
 * checked first by formPosts with the funnel's own limit, and answered 204 whatever was posted. Not a
 * Remix route, so a GET of /steps is an unknown path like any other (decision 0044).
 */
import type { Request as ExpressRequest, RequestHandler } from "express";
import type { Source, SourceSettings } from "~/funnel/source";
import { sourceOfLanding } from "~/funnel/count.server";
import { FUNNEL_EVENTS, type FunnelEvent, VISIT_FIELDS } from "~/funnel/visit";
import { type CheckedPost, requestHost } from "./form-posts";

/** Steps 2–5 only: a send and a contact message are counted where the server takes them. */
const STEPS: readonly string[] = FUNNEL_EVENTS.slice(0, 4);

/** The beacon as the funnel reads a request (headers and address), as Remix's Express adapter would make it. */
function fetchRequest(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
  return new Request(new URL(req.originalUrl, `${req.protocol}://${requestHost(req)}`), { method: "POST", headers });
}

export function funnelBeacon({
  count,
  sources,
}: {
  count(req: ExpressRequest, request: Request, event: FunnelEvent, source: Source): Promise<void>;
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

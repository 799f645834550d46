/** POST /steps, the wizard's beacon (decision 0036), checked by formPosts and answered 204. Not a Remix route: a GET is a 404 (decision 0044). */
import type { Request as ExpressRequest, RequestHandler } from "express";
import type { Source, SourceSettings } from "~/funnel/source";
import { sourceOfLanding } from "~/funnel/count.server";
import { FUNNEL_EVENTS, type FunnelEvent, VISIT_FIELDS } from "~/funnel/visit";
import { type CheckedPost, requestHost } from "./form-posts";

/** A send and a contact message are counted where the server takes them. */
const STEPS: readonly string[] = FUNNEL_EVENTS.slice(0, 4);

type Count = (req: ExpressRequest, request: Request, event: FunnelEvent, source: Source) => Promise<void>;

export function funnelBeacon(sources: SourceSettings, count: Count): RequestHandler {
  return async (req, res, next) => {
    const form = res.locals.form as CheckedPost | undefined;
    if (!form) return next(new Error(`POST ${req.path} reached the funnel's beacon without passing formPosts (server/form-posts.ts)`));
    const event = form.fields[VISIT_FIELDS.event];
    if (event !== undefined && STEPS.includes(event)) {
      // Node joins a request's repeated headers into one string each.
      const headers = req.headers as Record<string, string>;
      const request = new Request(new URL(req.originalUrl, `${req.protocol}://${requestHost(req)}`), { method: "POST", headers });
      try {
        await count(req, request, event as FunnelEvent, sourceOfLanding(form.fields[VISIT_FIELDS.landing], request, sources));
      } catch (error) {
        return next(error);
      }
    }
    res.status(204).set("Cache-Control", "private, no-store").end();
  };
}

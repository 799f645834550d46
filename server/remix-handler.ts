/**
 * Remix's Express adapter with one change: the body Remix reads is the one server/form-posts.ts
 * has already read, checked and cleaned, so an action reads its form the Remix way,
 * `await request.formData()`. The adapter alone would hand Remix the request's stream, which the
 * checks have used up: `formData()` would wait until the request timed out (decision 0017).
 */
import type { AppLoadContext } from "@remix-run/node";
// The adapter's own two halves; its createRequestHandler offers no hook between them.
import { createRemixRequest, sendRemixResponse } from "@remix-run/express/dist/server.js";
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import type { CheckedPost } from "./form-posts";

/** The methods Remix answers with an action: each one's body must pass formPosts first. */
export const ACTION_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function remixHandler(
  handle: (request: Request, context: AppLoadContext) => Promise<Response>,
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext,
): RequestHandler {
  return async (req, res, next) => {
    try {
      let request = createRemixRequest(req, res);
      if (ACTION_METHODS.has(req.method)) {
        const form = res.locals.form as CheckedPost | undefined;
        // Only a server mounted wrongly gets here: say so rather than let an action hang.
        if (!form)
          throw new Error(`${req.method} ${req.path} reached Remix without passing formPosts (server/form-posts.ts), which reads and checks every form's body`);
        const headers = new Headers(request.headers);
        headers.delete("content-length"); // the cleaned body may be shorter than the one sent
        request = new Request(request, { headers, body: new URLSearchParams(form.fields) });
      }
      await sendRemixResponse(res, await handle(request, getLoadContext(req, res)));
    } catch (error) {
      next(error);
    }
  };
}

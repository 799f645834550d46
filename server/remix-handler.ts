/**
 * Remix behind Express, on `@remix-run/node`'s public exports only (no adapter internals, so the
 * move to React Router 7 swaps one import). It does what Remix's Express adapter does, with one
 * change: the body Remix reads is the one server/form-posts.ts has already read, checked and
 * cleaned, so an action reads its form the Remix way, `await request.formData()` (decision 0017).
 */
import { writeReadableStreamToWritable, type AppLoadContext } from "@remix-run/node";
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import type { CheckedPost } from "./form-posts";

/** The methods Remix answers with an action: each one's body must pass formPosts first. */
export const ACTION_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The request as Remix sees it. The URL's host and scheme are Express's `req.hostname` and
 * `req.protocol`, which honour TRUST_PROXY (forwarded headers from anyone else are gone by now);
 * the signal aborts once the answer can no longer be sent.
 */
function remixRequest(req: ExpressRequest, res: ExpressResponse, body: URLSearchParams | undefined): Request {
  const host = req.get("X-Forwarded-Host")?.split(",")[0] ?? req.get("Host") ?? "";
  const port = /:(\d+)$/.exec(host.trim())?.[1];
  const url = new URL(`${req.protocol}://${req.hostname}${port ? `:${port}` : ""}${req.originalUrl}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  if (body) headers.delete("content-length"); // the cleaned body may be shorter than the one sent
  const controller = new AbortController();
  res.on("close", () => res.writableFinished || controller.abort());
  return new Request(url, { method: req.method, headers, body, signal: controller.signal });
}

export function remixHandler(
  handle: (request: Request, context: AppLoadContext) => Promise<Response>,
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext,
): RequestHandler {
  return async (req, res, next) => {
    try {
      let body: URLSearchParams | undefined;
      if (req.method !== "GET" && req.method !== "HEAD") {
        const form = res.locals.form as CheckedPost | undefined;
        // Only a server mounted wrongly gets here: say so rather than let an action hang.
        if (!form)
          throw new Error(`${req.method} ${req.path} reached Remix without passing formPosts (server/form-posts.ts), which reads and checks every form's body`);
        body = new URLSearchParams(form.fields);
      }
      const response = await handle(remixRequest(req, res, body), getLoadContext(req, res));
      res.statusMessage = response.statusText;
      res.status(response.status);
      for (const [name, value] of response.headers) res.append(name, value);
      if (response.body) await writeReadableStreamToWritable(response.body, res);
      else res.end();
    } catch (error) {
      next(error);
    }
  };
}

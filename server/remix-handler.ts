/**
 * Remix behind Express through its adapter's public entry point, `@remix-run/express`'s
 * `createRequestHandler` (its React Router 7 twin has the same shape), with one change: the body
 * the adapter reads is the one server/form-posts.ts has already read, checked and cleaned, so an
 * action reads its form the Remix way, `await request.formData()` (decision 0017).
 */
import { Readable } from "node:stream";
import { createRequestHandler } from "@remix-run/express";
import type { AppLoadContext, ServerBuild } from "@remix-run/node";
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import type { CheckedPost } from "./form-posts";

/** The methods Remix answers with an action: each one's body must pass formPosts first. */
export const ACTION_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The request as the adapter reads it: `req` itself (its URL, Host, TRUST_PROXY-aware protocol
 * and headers, through Express's own request methods), with a stream of its own holding the
 * checked form, since formPosts has used up the socket's. Without its Origin: formPosts has
 * decided on it (Fetch Metadata first), and Remix's own check, which compares it with Host alone,
 * would answer a browser's post through a proxy that rewrites Host with an empty 500.
 */
function withCheckedBody(req: ExpressRequest, form: CheckedPost): ExpressRequest {
  const body = Buffer.from(new URLSearchParams(form.fields).toString());
  // Its own destroy: IncomingMessage's would take the finished stream for an aborted request and
  // close the socket before the answer is written.
  const replay = new Readable({ read() {}, destroy: (error, done) => done(error) });
  replay.push(body);
  replay.push(null);
  Object.setPrototypeOf(replay, Object.getPrototypeOf(req));
  const { origin: _decided, ...headers } = { ...req.headers, "content-length": String(body.length) };
  return Object.assign(replay, {
    socket: req.socket,
    app: req.app,
    res: req.res,
    method: req.method,
    url: req.url,
    originalUrl: req.originalUrl,
    headers,
  }) as unknown as ExpressRequest;
}

export function remixHandler(
  build: ServerBuild | (() => Promise<ServerBuild>),
  mode: string,
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext,
): RequestHandler {
  const handle = createRequestHandler({ build, mode, getLoadContext });
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return void handle(req, res, next);
    const form = res.locals.form as CheckedPost | undefined;
    // Only a server mounted wrongly gets here: say so rather than let an action hang.
    if (!form)
      return next(
        new Error(`${req.method} ${req.path} reached Remix without passing formPosts (server/form-posts.ts), which reads and checks every form's body`),
      );
    return void handle(withCheckedBody(req, form), res, next);
  };
}

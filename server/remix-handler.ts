/** Remix behind Express. A post reaches it as a request of its own whose body is form-posts.ts's checked fields (decision 0017). */
import { IncomingMessage } from "node:http";
import { createRequestHandler } from "@remix-run/express";
import type { AppLoadContext, ServerBuild } from "@remix-run/node";
import express, { type Request as ExpressRequest, type RequestHandler, type Response as ExpressResponse } from "express";
import type { CheckedPost } from "./form-posts";
import { sendPlain } from "./headers";
import { resourceMethods } from "./route-paths";

/** Without its Origin: form-posts decided on it, and Remix's own check (against Host alone) fails a proxy that rewrites Host with a 500. */
function checkedPost(req: ExpressRequest, form: CheckedPost): IncomingMessage {
  const body = Buffer.from(new URLSearchParams(form.fields).toString());
  const { origin: _decided, ...headers } = { ...req.headers, "content-length": String(body.length) };
  // `complete`: once read, it is not taken for an aborted request.
  const post = Object.assign(new IncomingMessage(req.socket), { method: req.method, url: req.originalUrl, headers, complete: true });
  post.push(body);
  post.push(null);
  return post;
}

export function remixHandler(
  build: ServerBuild | (() => Promise<ServerBuild>),
  mode: string,
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext,
): RequestHandler {
  const handle = createRequestHandler({ build, mode, getLoadContext });
  const checkedPosts = express().disable("x-powered-by").use(handle);
  // A method a resource route has no function for (a post to /robots.txt): a 405, not Remix's JSON error (decision 0044).
  if (typeof build !== "function") {
    const methods = resourceMethods(build.routes);
    return (req, res, next) => answer(methods.get(req.path), req, res, next);
  }
  return (req, res, next) =>
    void build()
      .then(({ routes }) => answer(resourceMethods(routes).get(req.path), req, res, next))
      .catch(next);
  function answer(allowed: string[] | undefined, req: ExpressRequest, res: ExpressResponse, next: (error?: unknown) => void) {
    if (allowed !== undefined && !allowed.includes(req.method)) {
      return sendPlain(res.set("Allow", allowed.join(", ")), 405, "This address does not take that method.");
    }
    if (req.method === "GET" || req.method === "HEAD") return void handle(req, res, next);
    const form = res.locals.form as CheckedPost | undefined;
    if (!form)
      return next(
        new Error(`${req.method} ${req.path} reached Remix without passing formPosts (server/form-posts.ts), which reads and checks every form's body`),
      );
    checkedPosts.set("trust proxy", req.app.get("trust proxy"));
    checkedPosts(checkedPost(req, form) as ExpressRequest, res, next);
  }
}

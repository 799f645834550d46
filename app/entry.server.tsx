import { PassThrough } from "node:stream";
import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import pkg from "../package.json";
import { site } from "~/content/site";
import { enforceDocumentCachePolicy } from "~/server/cache-headers";
import { assertConfigOrExit, describeConfig } from "~/server/config.server";
import { handOverCsrfCheck } from "~/server/csrf-handover.server";
import { log } from "~/server/log.server";
import { getSharedRateLimits } from "~/server/rate-limit.server";
import { applySecurityHeaders, createNonce, isHttps } from "~/server/security-headers.server";
import { NonceProvider } from "~/utils/nonce";

// Module scope runs when remix-serve imports the build, before it listens: a bad configuration
// stops the process here with one clear line.
const config = assertConfigOrExit({ formInbox: site.email });
getSharedRateLimits(config);
const csrfCheck = handOverCsrfCheck() ? "ours" : "remix";
log("start", { version: process.env.APP_VERSION || pkg.version, csrfCheck, ...describeConfig(config) });

const ABORT_DELAY = 5_000;

export default function handleRequest(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext) {
  const nonce = createNonce();
  applySecurityHeaders(responseHeaders, { nonce, https: isHttps(request, config.trustProxy) });
  const readyEvent = isbot(request.headers.get("user-agent") ?? "") ? "onAllReady" : "onShellReady";
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider nonce={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />
      </NonceProvider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          enforceDocumentCachePolicy(request, responseStatusCode, responseHeaders);
          resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) log("render_error", { error }, "error");
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

/** Client-side navigations and form posts get the same protective headers as documents. */
export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  applySecurityHeaders(response.headers, { nonce: createNonce(), https: isHttps(request, config.trustProxy) });
  if (request.method !== "GET") response.headers.set("Cache-Control", "private, no-store");
  return response;
};

/** One JSON line per unexpected error; never a stack trace to the visitor. */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  log("error", { error, method: request.method, path: new URL(request.url).pathname }, "error");
};

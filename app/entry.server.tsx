import { PassThrough } from "node:stream";
import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import type { ReactElement } from "react";
import { renderToPipeableStream } from "react-dom/server";
import pkg from "../package.json";
import { site } from "~/content/site";
import { enforceDocumentCachePolicy } from "~/server/cache-headers";
import { documentCacheKey, HtmlCache, NONCE_PLACEHOLDER } from "~/server/html-cache.server";
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
const htmlCache = new HtmlCache({ maxEntries: 100, ttlMs: 60_000 });

export default async function handleRequest(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext) {
  const nonce = createNonce();
  applySecurityHeaders(responseHeaders, { nonce, https: isHttps(request, config.trustProxy) });
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");

  // A page that is the same for every visitor is rendered once per URL, with a placeholder where
  // the nonce goes; each response then gets its own nonce (docs/decisions/0006-html-cache.md).
  const cacheKey = documentCacheKey(request, responseStatusCode, remixContext);
  if (cacheKey) {
    let html = htmlCache.get(cacheKey, nonce);
    if (html === undefined) {
      const rendered = await renderToHtml(<RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />);
      if (rendered.ok) html = htmlCache.set(cacheKey, rendered.html, nonce);
      else {
        responseStatusCode = 500;
        html = new TextEncoder().encode(rendered.html.replaceAll(NONCE_PLACEHOLDER, nonce));
      }
    }
    enforceDocumentCachePolicy(request, responseStatusCode, responseHeaders);
    // With the length known, Node sends the answer in one write instead of chunks and a terminator.
    responseHeaders.set("Content-Length", String(html.byteLength));
    return new Response(html, { headers: responseHeaders, status: responseStatusCode });
  }

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

/**
 * The hydration modules Remix's <Scripts> preloads never block rendering (the page is already
 * server-rendered), but Chromium fetches `<link rel="modulepreload">` at High priority, next to
 * the stylesheet. `fetchpriority="low"` lets the stylesheet and images go first on a slow link;
 * it also keeps Lighthouse's simulation from counting them as render-blocking for the first paint.
 */
function lowPriorityModulePreloads(html: string): string {
  return html.replaceAll('<link rel="modulepreload" ', '<link rel="modulepreload" fetchpriority="low" ');
}

/** The whole document as one string, rendered with NONCE_PLACEHOLDER; `ok` is false after a render error. */
function renderToHtml(app: ReactElement): Promise<{ html: string; ok: boolean }> {
  return new Promise((resolve, reject) => {
    let ok = true;
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on("data", (chunk: Buffer) => chunks.push(chunk));
    sink.on("end", () => {
      clearTimeout(timer);
      resolve({ html: lowPriorityModulePreloads(Buffer.concat(chunks).toString("utf8")), ok });
    });
    const { pipe, abort } = renderToPipeableStream(<NonceProvider nonce={NONCE_PLACEHOLDER}>{app}</NonceProvider>, {
      nonce: NONCE_PLACEHOLDER,
      onAllReady: () => pipe(sink),
      onShellError(error: unknown) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error: unknown) {
        ok = false;
        log("render_error", { error }, "error");
      },
    });
    const timer = setTimeout(abort, ABORT_DELAY);
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

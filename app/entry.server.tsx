import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import type { ReactElement } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { withRestoring } from "~/calculator/restoring.server";
import { enforceDocumentCachePolicy } from "~/utils/cache-headers";
import { contentSecurityPolicy, inlineScriptHashes } from "~/utils/csp.server";

const ABORT_DELAY = 5_000;
const dev = process.env.NODE_ENV === "development";

/**
 * Every document is rendered whole (the pages wait on no data), then sent with a CSP that allows
 * exactly its own inline scripts by their SHA-256: no nonce, so the same page is the same bytes
 * for every visitor, and header and body agree wherever the answer is kept (decision 0014).
 * The server's page cache (server/page-cache.ts) keeps public pages as they leave here.
 */
export default async function handleRequest(request: Request, status: number, headers: Headers, remixContext: EntryContext, context: AppLoadContext) {
  const rendered = await renderDocument(<RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />, context);
  if (!rendered.ok) status = 500;
  enforceDocumentCachePolicy(request, status, headers);
  headers.set("Content-Type", "text/html; charset=utf-8");
  const html = withRestoring(dev ? rendered.html : lowPriorityModulePreloads(rendered.html));
  headers.set("Content-Security-Policy", contentSecurityPolicy(inlineScriptHashes(html), { dev }));
  const body = Buffer.from(html, "utf8");
  headers.set("Content-Length", String(body.byteLength));
  return new Response(body, { status, headers });
}

function renderDocument(app: ReactElement, context: AppLoadContext): Promise<{ html: string; ok: boolean }> {
  return new Promise((resolve, reject) => {
    let ok = true;
    const chunks: Buffer[] = [];
    const sink = new PassThrough().on("data", (chunk: Buffer) => chunks.push(chunk));
    sink.on("end", () => {
      clearTimeout(timer);
      resolve({ html: Buffer.concat(chunks).toString("utf8"), ok });
    });
    const { pipe, abort } = renderToPipeableStream(app, {
      onAllReady: () => pipe(sink),
      onShellError(error: unknown) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error: unknown) {
        ok = false;
        context.log.error({ err: error }, "render_error");
      },
    });
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * Remix's <Scripts> preloads the hydration modules, which Chromium then fetches at High priority
 * next to the stylesheet; they never block the server-rendered page, so on a slow connection the
 * stylesheet and images go first (they still start at once: hydration is not held back).
 * Production only: React in development would warn about the attribute it did not render.
 */
function lowPriorityModulePreloads(html: string): string {
  return html.replaceAll('<link rel="modulepreload" ', '<link rel="modulepreload" fetchpriority="low" ');
}

/** Answers to posts made by Remix's browser code are one visitor's own: never cached. */
export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  if (request.method !== "GET") response.headers.set("Cache-Control", "private, no-store");
  return response;
};

/** One JSON line per unexpected error; the visitor never sees a stack trace. */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  context.log.error({ err: error, method: request.method, path: new URL(request.url).pathname }, "error");
};

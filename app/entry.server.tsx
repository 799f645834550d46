import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import type { ReactElement } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { enforceDocumentCachePolicy } from "~/utils/cache-headers";
import { NonceProvider } from "~/utils/nonce";

const ABORT_DELAY = 5_000;
/** Where each response's nonce goes: random, so no page text can contain it by chance. */
const NONCE_SLOT = randomBytes(16).toString("base64");

/**
 * Every document is rendered whole (the pages wait on no data), with NONCE_SLOT where the CSP
 * nonce goes. The pieces around it are offered to the server's page cache, then joined with this
 * response's own nonce.
 */
export default async function handleRequest(request: Request, status: number, headers: Headers, remixContext: EntryContext, context: AppLoadContext) {
  const rendered = await renderDocument(<RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />, context);
  if (!rendered.ok) status = 500;
  enforceDocumentCachePolicy(request, status, headers);
  headers.set("Content-Type", "text/html; charset=utf-8");
  const pieces = rendered.html.split(NONCE_SLOT);
  context.keepPage?.({ status, headers, pieces });
  const body = Buffer.from(pieces.join(context.cspNonce), "utf8");
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
    const { pipe, abort } = renderToPipeableStream(<NonceProvider nonce={NONCE_SLOT}>{app}</NonceProvider>, {
      nonce: NONCE_SLOT,
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

/**
 * The one way a request skips Express: a public page's GET or HEAD from the page cache (decision 0014). Express cost it
 * 40-50% more CPU (perf/README.md), and its exact path passes every check but the Host's (made here).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Express } from "express";
import { HSTS_HEADER } from "./headers";
import type { Page, PageCache } from "./page-cache";
import { wellFormedHost } from "./reject-malformed";

export function keptPagesFirst(pages: PageCache, app: Express): (req: IncomingMessage, res: ServerResponse) => void {
  const secure = (req: IncomingMessage) => {
    if ((req.socket as TLSSocket).encrypted) return true;
    const proto = req.headers["x-forwarded-proto"];
    const trusted = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
    return typeof proto === "string" && trusted(req.socket.remoteAddress ?? "", 0) && proto.split(",")[0]!.trim() === "https";
  };
  const send = (req: IncomingMessage, res: ServerResponse, page: Page) => pages.send(req, res, page, secure(req) ? HSTS_HEADER : []);

  return (req, res) => {
    const route = wellFormedHost(req.headers) ? pages.route(req.method, req.url ?? "") : null;
    const page = route && pages.lookup(route.key);
    if (!page) return void app(req, res);
    if (!(page instanceof Promise)) return send(req, res, page);
    // A failed render resolves undefined (lru-cache's allowStaleOnFetchRejection): Remix renders the request, and logs what fails there.
    void page.then((kept) => (kept ? send(req, res, kept) : app(req, res)));
  };
}

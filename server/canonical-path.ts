/**
 * One address per path: `//`, `/./`, `/%2e/`, `/services/`, `/%73ervices` and `/work\` all name a
 * page whose relative links would resolve against it and which a shared cache would keep again.
 * They get a 301 instead.
 */
import type { RequestHandler, Response } from "express";

/** Anything in a path that may not be canonical: a backslash, an escape, `//`, a dot segment, a trailing `/`. */
const MAYBE_ODD = /[\\%]|\/\/|\/\.\.?(?:\/|$)|.\/$/;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/**
 * The canonical form of a request's path (RFC 3986 §6.2.2, as a browser reads it): backslashes are
 * slashes, escapes of unreserved characters decoded and the others upper case, dot segments
 * resolved, empty segments and a trailing slash dropped. A path that does not decode is left (400).
 */
export function canonicalPath(path: string): string {
  if (!MAYBE_ODD.test(path)) return path;
  try {
    decodeURIComponent(path);
  } catch {
    return path;
  }
  const decoded = path.replace(/\\/g, "/").replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
    const char = String.fromCharCode(parseInt(escape.slice(1), 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/**
 * A GET or HEAD of an odd address, or of a page's path in odd case (`/SeRvIcEs`), answered 301 to
 * the one address, query kept, in one hop. A form posted to an odd address is a 404, unread (the
 * connection closes), never an action. `pagePaths`: the pages whose paths answer in any case.
 */
export function oneAddress(pagePaths: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const mark = req.url.indexOf("?");
    const path = mark === -1 ? req.url : req.url.slice(0, mark);
    const canonical = canonicalPath(path);
    const lower = canonical.toLowerCase();
    const page = lower !== canonical && pagePaths.has(lower) ? lower : canonical;
    if (page === path) return next();
    if (req.method === "GET" || req.method === "HEAD") return moved(res, page + (mark === -1 ? "" : req.url.slice(mark)));
    if (canonical === path) return next(); // a post to a page's path in odd case: Remix's 404
    const headers = { "Cache-Control": "private, no-store", "Content-Type": "text/plain; charset=utf-8", "Content-Length": "9", Connection: "close" };
    res.writeHead(404, headers).end("Not found");
  };
}

function moved(res: Response, location: string) {
  try {
    res.writeHead(301, { "Cache-Control": "public, max-age=3600", Location: location, "Content-Length": "0" });
  } catch {
    // Node's parser refuses what a header could not carry; should one get through, refuse it too.
    res.writeHead(400, { "Cache-Control": "private, no-store", "Content-Type": "text/plain; charset=utf-8", "Content-Length": "0" });
  }
  res.end();
}

/** One address per path: `//`, `/./`, `/services/`, `/%73ervices`, `/work\` would break relative links and fill shared caches. */
import type { RequestHandler, Response } from "express";

const MAYBE_ODD = /[\\%]|\/\/|\/\.\.?(?:\/|$)|.\/$/;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/** RFC 3986 §6.2.2 as a browser reads it, `\` a slash, empty segments and a trailing slash dropped. One that does not decode is left (400). */
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

/** A GET or HEAD, also of a page in odd case (`/SeRvIcEs`), gets a 301 in one hop; a post a 404, unread, never an action. */
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
    // Node refuses a Location with a character a header cannot carry.
    res.writeHead(400, { "Cache-Control": "private, no-store", "Content-Type": "text/plain; charset=utf-8", "Content-Length": "0" });
  }
  res.end();
}

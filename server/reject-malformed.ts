/** A short 4xx before anything downstream makes a 500; forwarded headers dropped unless a trusted proxy sent them (Remix reads them). */
import type { RequestHandler } from "express";
import { sendPlain } from "./headers";

const METHODS = new Set(["GET", "HEAD", "POST"]);
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;
const FORWARDED = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto"];

function validHost(value: string | undefined): boolean {
  const match = value === undefined ? null : HOST.exec(value);
  return match !== null && Number(match[1] ?? 0) <= 65535;
}

export function wellFormedHost(headers: { host?: string | undefined; "x-forwarded-host"?: string | string[] | undefined }): boolean {
  const forwardedHost = headers["x-forwarded-host"];
  return validHost(headers.host) && (forwardedHost === undefined || validHost(String(forwardedHost).split(",")[0]?.trim()));
}

export function rejectMalformed(trusted: (address: string, hop: number) => boolean): RequestHandler {
  return (req, res, next) => {
    if (!METHODS.has(req.method)) return sendPlain(res.set("Allow", [...METHODS].join(", ")), 405, "Method not allowed");
    if (!req.originalUrl.startsWith("/")) return sendPlain(res, 400, "Bad request target");
    try {
      decodeURIComponent(req.path);
    } catch {
      return sendPlain(res, 400, "Bad request path");
    }
    if (!wellFormedHost(req.headers)) return sendPlain(res, 400, "Bad host");
    if (!trusted(req.socket.remoteAddress ?? "", 0)) for (const name of FORWARDED) delete req.headers[name];
    next();
  };
}

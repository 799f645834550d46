/** Every answer's headers: helmet's, a Permissions-Policy, HSTS over HTTPS, and a CSP unless a document brings its own (decision 0014). */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import onHeaders from "on-headers";
import { contentSecurityPolicy } from "~/utils/csp.server";

const protect = helmet({
  contentSecurityPolicy: false, // below, once the answer's own is known
  referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  strictTransportSecurity: false, // below, over HTTPS only
  xFrameOptions: { action: "deny" },
});
const hsts = helmet.strictTransportSecurity({ maxAge: 63_072_000, includeSubDomains: true });
const PERMISSIONS_POLICY =
  "accelerometer=(), browsing-topics=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), midi=(), payment=(), serial=(), usb=()";

export function everyAnswersHeaders({ dev }: { dev: boolean }): RequestHandler[] {
  const commonCsp = contentSecurityPolicy([], { dev });
  return [
    protect,
    (req, res, next) => {
      res.setHeader("Permissions-Policy", PERMISSIONS_POLICY);
      // Remix appends its headers, so a CSP set now would make two: it is set as the headers go out.
      onHeaders(res, () => void (res.hasHeader("content-security-policy") || res.setHeader("content-security-policy", commonCsp)));
      if (req.secure) hsts(req, res, next);
      else next();
    },
  ];
}

/** A short plain-text answer (an error, a refusal) that no cache keeps. */
export const sendPlain = (res: Response, status: number, text: string) =>
  void res.status(status).set("Cache-Control", "private, no-store").type("text/plain").send(text);

/** For a kept page answered before Express: recorded once, as running helmet per answer cost a quarter of its time. */
export const PROTECTIVE_HEADERS: [string, string][] = [...recorded(protect), ["permissions-policy", PERMISSIONS_POLICY]];
export const HSTS_HEADER = recorded(hsts)[0]!;

function recorded(middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): [string, string][] {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
  middleware({} as IncomingMessage, response as unknown as ServerResponse, () => undefined);
  return [...headers];
}

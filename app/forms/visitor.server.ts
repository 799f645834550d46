/**
 * Which browser a request comes from, for the records the server keeps for it (drafts, receipts:
 * server/drafts.ts). A first-party cookie holds a random token that only this browser has; the
 * store knows it only by its SHA-256 (the owner), so neither a link nor a copy of the store can
 * open a visitor's records. Set only in answers to a form post, never on a public page.
 */
import { createHash, randomBytes } from "node:crypto";
import { createCookie } from "@remix-run/node";
import { DRAFT_LIFETIME_MINUTES } from "~/content/privacy";

// HttpOnly (no script reads it), SameSite=Lax (a cross-site post never carries it), as long as
// the records it opens. Over HTTPS it is `__Host-visit`: Secure, and a cookie no other subdomain
// and no plain-HTTP answer can set, so nobody can plant a token of their own in a visitor's browser.
export const VISIT_COOKIE = "visit";
const options = { httpOnly: true, sameSite: "lax", path: "/", maxAge: DRAFT_LIFETIME_MINUTES * 60 } as const;
const plain = createCookie(VISIT_COOKIE, options);
const hostOnly = createCookie(`__Host-${VISIT_COOKIE}`, { ...options, secure: true });
const cookieFor = (request: Request) => (new URL(request.url).protocol === "https:" ? hostOnly : plain);
const TOKEN = /^[A-Za-z0-9_-]{22}$/;

const ownerOf = (token: string) => createHash("sha256").update(token).digest("base64url");

async function tokenOf(request: Request): Promise<string | undefined> {
  const token: unknown = await cookieFor(request).parse(request.headers.get("cookie"));
  return typeof token === "string" && TOKEN.test(token) ? token : undefined;
}

/** The owner of this request's records, or undefined for a browser the server gave no cookie. */
export async function visitorOwner(request: Request): Promise<string | undefined> {
  const token = await tokenOf(request);
  return token === undefined ? undefined : ownerOf(token);
}

/**
 * The owner to keep a record under, and the Set-Cookie header that makes (or keeps) this browser
 * its owner: the browser's own token, or a new one. Sent again each time, so the cookie lives as
 * long as the newest record.
 */
export async function visitor(request: Request): Promise<{ owner: string; headers: { "Set-Cookie": string } }> {
  const token = (await tokenOf(request)) ?? randomBytes(16).toString("base64url");
  return { owner: ownerOf(token), headers: { "Set-Cookie": await cookieFor(request).serialize(token) } };
}

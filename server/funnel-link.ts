/**
 * The funnel's page for marketing on the public port, read-only, by a link that carries its expiry and an HMAC-SHA256
 * of it (decision 0054). The key is one row of the lead store, so every container and the command agree; a new key
 * revokes every link. Anything but a good, unexpired link is passed on: Remix's 404, as for any unknown address.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { LRUCache } from "lru-cache";
import type { Db } from "./db";
import type { FunnelDay } from "./funnel";
import { funnelPage, PAGE_STYLE } from "./funnel-report";

export const LINK_PATH = "/funnel/";
/** How long a server keeps the key it read: a revoke reaches every server within this. */
export const KEY_KEPT_MS = 5_000;
const TOKEN = /^(\d{1,12})\.([\w-]{43})$/;

const mac = (key: Buffer, expires: number) => createHmac("sha256", key).update(`funnel-link ${expires}`).digest();

/** A link's token: its expiry (seconds since 1970) and the MAC. */
export const signLink = (key: Buffer, expiresMs: number) => {
  const expires = Math.floor(expiresMs / 1000);
  return `${expires}.${mac(key, expires).toString("base64url")}`;
};

export function linkValid(key: Buffer, token: string, now: number): boolean {
  const [, expires, given] = TOKEN.exec(token) ?? [];
  if (!expires || !given || Number(expires) * 1000 <= now) return false;
  // As text: a MAC's last character has two spare bits, so the bytes alone would take four spellings of one link.
  return timingSafeEqual(Buffer.from(given), Buffer.from(mac(key, Number(expires)).toString("base64url")));
}

/** The key: the store's, made on first use; with `renew` a new one, so every link given so far stops working. */
export async function linkKey(db: Db, renew = false): Promise<Buffer> {
  const fresh = randomBytes(32).toString("base64url");
  const take = renew ? "DO UPDATE SET secret = excluded.secret" : "DO NOTHING";
  await db.run(`INSERT INTO funnel_link_key (id, secret) VALUES (1, ?) ON CONFLICT (id) ${take}`, [fresh]);
  return Buffer.from(String((await db.get("SELECT secret FROM funnel_link_key WHERE id = 1"))!.secret), "base64url");
}

/** No script at all; the page's one style by its hash. */
const CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** How long a read of the funnel serves every link's page: one read a minute however often the page is asked for. */
const READ_KEPT_MS = 60_000;

/**
 * GET or HEAD of LINK_PATH + a token; `read` gives the funnel's last 30 days. The server never makes a key: no link
 * given, none valid. A key that cannot be read is no key (the 404): only a good link learns that the page exists.
 */
export function funnelLinks(db: Db, read: () => Promise<FunnelDay[]>, now = Date.now): RequestHandler {
  let kept: { key: Buffer | null; at: number } | undefined;
  const key = async () => {
    if (!kept || now() - kept.at >= KEY_KEPT_MS) {
      const row = await db.get("SELECT secret FROM funnel_link_key WHERE id = 1").catch(() => undefined);
      kept = { key: row ? Buffer.from(String(row.secret), "base64url") : null, at: now() };
    }
    return kept.key;
  };
  const days = new LRUCache<"days", { days: FunnelDay[]; at: number }>({
    max: 1,
    ttl: READ_KEPT_MS,
    fetchMethod: async () => ({ at: now(), days: await read() }),
  });
  return (req, res, next) => {
    const token = req.path.startsWith(LINK_PATH) ? req.path.slice(LINK_PATH.length) : ""; // Express's routes ignore case: one address
    if (!TOKEN.test(token)) return next();
    key()
      .then(async (secret) => {
        if (!secret || !linkValid(secret, token, now())) return next();
        const { days: read, at } = (await days.fetch("days"))!;
        const page = funnelPage(read, { at, until: Number(token.split(".")[0]) * 1000 });
        const headers = { "Cache-Control": "no-store", "X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer", "Content-Security-Policy": CSP };
        res.set(headers).type("html").send(page);
      })
      .catch(next);
  };
}

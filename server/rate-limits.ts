/** Per-client post limits (rate-limiter-flexible): in memory, or on PostgreSQL shared by every container, memory backing it. */
import { createHmac, createSecretKey, randomBytes } from "node:crypto";
import { isIPv4 } from "node:net";
import ipaddr from "ipaddr.js";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from "rate-limiter-flexible";
import { preparedOnce, type Db } from "./db";
import type { Logger } from "./log";

export const LIMITS = {
  posts: { points: 30, duration: 60 },
  // A visit posts at most four beacons: thirty visits behind one address in ten minutes count whole.
  funnel: { points: 120, duration: 10 * 60 },
};

/**
 * An IPv4 address, or an IPv6 one's /64 (a household gets a whole /64). A socket's IPv4 address (as Node gives it, or
 * mapped to IPv6 on a dual-stack port) is taken as it is: ipaddr.js's parse costs ~9 µs, which every landing would pay.
 */
export function clientKey(ip: string | undefined): string {
  const v4 = ip?.startsWith("::ffff:") ? ip.slice(7) : ip;
  if (v4 && isIPv4(v4)) return `ip:${v4}`;
  if (!ip || !ipaddr.isValid(ip)) return "unknown";
  let address = ipaddr.parse(ip);
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
  if (address instanceof ipaddr.IPv4) return `ip:${address.toString()}`;
  const network = address.parts.slice(0, 4).map((part) => part.toString(16));
  return `ip6:${network.join(":")}::/64`;
}

/**
 * What the lead store, drafts and funnel keep of an address: an HMAC whose key is never written down, so never the address.
 * The key as a KeyObject: a Buffer is made into one on every call, which cost nine times the hash (each landing has one).
 */
export function addressCodes(key = randomBytes(32)) {
  const secret = createSecretKey(key);
  return (client: string) => createHmac("sha256", secret).update(client).digest("base64url").slice(0, 22);
}

export type RateLimits = ReturnType<typeof createRateLimits>;

const TABLE = "rate_limits";

/** `timeoutMs`: a count's wait for PostgreSQL before memory counts it. */
export function createRateLimits(db: Db | undefined, log: Logger, timeoutMs = 500) {
  const pool = db?.engine === "postgres" ? db.pool : undefined;
  // Made here, again after a failure: a limiter makes it only when built, so a PostgreSQL down at the start would never get it.
  const table = preparedOnce(() =>
    db!.transaction((tx) => tx.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`), {
      exclusive: true,
    }),
  );

  const make = (name: keyof typeof LIMITS): RateLimiterAbstract => {
    const rule = { keyPrefix: `rl:${name}`, ...LIMITS[name] };
    if (!pool) return new RateLimiterMemory(rule);
    const insuranceLimiter = new RateLimiterMemory(rule);
    const shared = new RateLimiterPostgres({ ...rule, storeClient: pool, tableName: TABLE, tableCreated: true, insuranceLimiter });
    return new RLWrapperTimeouts({ limiter: shared, timeoutMs, insuranceLimiter });
  };
  const limiters = { posts: make("posts"), funnel: make("funnel") };

  /** The seconds to wait, 0 to go on. Fails open on a store error. */
  async function take(name: keyof typeof LIMITS, key: string): Promise<number> {
    try {
      if (pool) await table().catch(() => undefined); // until it exists, memory counts
      await limiters[name].consume(key);
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      log.error({ err: rejection, limit: name }, "rate_limit_error");
      return 0;
    }
  }

  return { take };
}

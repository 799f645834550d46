/**
 * Per-client limits (rate-limiter-flexible): form posts a minute (leads are held past an address's
 * share instead, in the lead store: decision 0031). In memory by default; with REDIS_URL in Redis,
 * so every container counts together, each Redis limiter backed by an in-memory one so a Redis
 * outage degrades instead of failing.
 */
import ipaddr from "ipaddr.js";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Logger } from "./log";
import { requestConnection, watchRedis } from "./redis";

export const LIMITS = {
  posts: { points: 30, duration: 60 },
  // The funnel's beacons (POST /steps): a visit posts at most four, so thirty visits behind one
  // address in ten minutes are counted whole; a flood adds a bounded number of counts, no more.
  funnel: { points: 120, duration: 10 * 60 },
};

/**
 * The bucket a client address counts in: the IPv4 address, or the /64 network of an IPv6 one
 * (one household or server gets a whole /64, so single addresses would be free to rotate).
 */
export function clientKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return "unknown";
  let address = ipaddr.parse(ip);
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
  if (address instanceof ipaddr.IPv4) return `ip:${address.toString()}`;
  return `ip6:${address.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/** `commandTimeoutMs`: how long a Redis command may take before that request is counted in memory. */
export function createRateLimits(redisUrl: string | undefined, log: Logger, commandTimeoutMs = 500) {
  const shared = redisUrl ? requestConnection(redisUrl, commandTimeoutMs) : undefined;
  const redis = shared && watchRedis(shared.connection, log, { event: "rate_limit_store", fields: { store: "redis" }, fallback: "memory" });

  const make = (name: keyof typeof LIMITS): RateLimiterAbstract => {
    const rule = { keyPrefix: `rl:${name}`, ...LIMITS[name] };
    if (!redis) return new RateLimiterMemory(rule);
    return new RateLimiterRedis({ ...rule, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(rule) });
  };
  const limiters = { posts: make("posts"), funnel: make("funnel") };

  /** 0 when the client may go on, otherwise the seconds to wait. Fails open on a store error. */
  async function take(name: keyof typeof LIMITS, key: string): Promise<number> {
    try {
      await limiters[name].consume(key);
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      log.error({ err: rejection, limit: name }, "rate_limit_error");
      return 0;
    }
  }

  return { take, close: async () => void (await shared?.release()) };
}

/**
 * Abuse limits for form posts, with rate-limiter-flexible.
 *
 * Two limits per client:
 * - posts: every POST to a route action (the JavaScript-off wizard posts once per step);
 * - deliveries: messages actually handed to the form service / outbox.
 *
 * Storage: in memory by default (per process). With REDIS_URL, in Redis so that several containers
 * share the counts; each Redis limiter has an in-memory insurance limiter, so a Redis outage or a
 * slow Redis (commandTimeout) degrades to per-process limits instead of a 500.
 *
 * Client identity (`clientKey`): remix-serve passes no load context, so an action never sees the
 * socket address. Behind a proxy we trust (TRUST_PROXY), the client is the entry of
 * X-Forwarded-For that our proxy wrote: the RIGHT-most one with one proxy (`proxyHops: 1`), the
 * n-th from the right with n proxies that each append. Never the left-most: the client writes
 * that one itself, so using it would let anyone pick a fresh bucket per request. Without a
 * trusted proxy there is no trustworthy identity at all, so every visitor shares one site-wide
 * bucket ("site"), which gets its own, larger limits (SITE_WIDE_LIMITS): the per-client numbers
 * would let one person lock every visitor out of the contact form for ten minutes.
 *
 * Lifecycle: memory limiters only use unref'd timers (rate-limiter-flexible's MemoryStorage) and
 * never keep the process alive. A Redis client does, until `close()` is called: remix-serve only
 * closes its HTTP server on SIGTERM/SIGINT, so a build holding an open client never exits on its
 * own. Use `getSharedRateLimits(cfg)` in app code: one instance per process, closed on those
 * signals.
 */
import { isIP } from "node:net";

import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimiterAbstract } from "rate-limiter-flexible";

import { log } from "./log.server";

export interface LimitRule {
  points: number;
  durationSeconds: number;
}

export interface LimitRules {
  posts: LimitRule;
  deliveries: LimitRule;
}

export const PER_CLIENT_LIMITS: LimitRules = {
  posts: { points: 30, durationSeconds: 60 },
  deliveries: { points: 5, durationSeconds: 10 * 60 },
};

/** For the shared "site" bucket used when no client identity can be trusted. */
export const SITE_WIDE_LIMITS: LimitRules = {
  posts: { points: 300, durationSeconds: 60 },
  deliveries: { points: 30, durationSeconds: 10 * 60 },
};

export const SITE_KEY = "site";

export type ConsumeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimits {
  consumePost(key: string): Promise<ConsumeResult>;
  consumeDelivery(key: string): Promise<ConsumeResult>;
  /**
   * "memory"; "closed" after close(); otherwise the ioredis connection status ("ready",
   * "connecting", "reconnecting", …).
   */
  status(): string;
  /** Redis: resolves true once connected, false after `timeoutMs`. Memory: true at once. */
  ready(timeoutMs?: number): Promise<boolean>;
  /** Disconnect from Redis (idempotent). Memory: nothing to do. */
  close(): Promise<void>;
}

export interface RateLimitOptions {
  perClient?: LimitRules;
  siteWide?: LimitRules;
  /** Redis/memory key prefix, e.g. to separate sites sharing one Redis. */
  prefix?: string;
  /** Per-command Redis timeout before the insurance limiter answers instead. */
  redisCommandTimeoutMs?: number;
}

type LimitName = keyof LimitRules;

export function createRateLimits(cfg: { redisUrl?: string | undefined }, opts: RateLimitOptions = {}): RateLimits {
  const perClient = opts.perClient ?? PER_CLIENT_LIMITS;
  const siteWide = opts.siteWide ?? SITE_WIDE_LIMITS;
  const prefix = opts.prefix ?? "rl";

  let redis: Redis | undefined;
  if (cfg.redisUrl) {
    redis = new Redis(cfg.redisUrl, {
      enableOfflineQueue: false, // fail fast to the insurance limiter instead of queueing
      maxRetriesPerRequest: 0,
      commandTimeout: opts.redisCommandTimeoutMs ?? 500,
      connectTimeout: 2000,
      // disconnect() arms a ref'd timer of this length that is only cleared by the socket's
      // "close" event; when Redis was down that socket is already closed, so the timer runs out
      // and holds the process this long after close(). ioredis's default is 2000.
      disconnectTimeout: 300,
      lazyConnect: false,
    });
    let up = false;
    let loggedDown = false;
    redis.on("ready", () => {
      up = true;
      log("rate_limit_store_ready", { store: "redis" });
    });
    // Without an "error" listener ioredis prints every failed reconnect; log state changes only.
    redis.on("error", (error: unknown) => {
      if (up || !loggedDown) {
        log("rate_limit_store_down", { store: "redis", error, fallback: "memory" }, "warn");
        loggedDown = true;
      }
      up = false;
    });
  }

  function make(name: string, rule: LimitRule): RateLimiterAbstract {
    const base = { keyPrefix: `${prefix}:${name}`, points: rule.points, duration: rule.durationSeconds };
    if (!redis) return new RateLimiterMemory(base);
    return new RateLimiterRedis({
      ...base,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(base),
    });
  }

  const limiters: Record<"client" | "site", Record<LimitName, RateLimiterAbstract>> = {
    client: { posts: make("posts", perClient.posts), deliveries: make("deliveries", perClient.deliveries) },
    site: { posts: make("site-posts", siteWide.posts), deliveries: make("site-deliveries", siteWide.deliveries) },
  };

  async function consume(name: LimitName, key: string): Promise<ConsumeResult> {
    const limiter = limiters[key === SITE_KEY ? "site" : "client"][name];
    try {
      await limiter.consume(key);
      return { ok: true };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      // Store failure that even the insurance limiter could not absorb: fail open, never 500.
      log("rate_limit_error", { limit: name, error: rejection }, "error");
      return { ok: true };
    }
  }

  let closing: Promise<void> | undefined;
  let closed = false;

  return {
    consumePost: (key) => consume("posts", key),
    consumeDelivery: (key) => consume("deliveries", key),
    // ioredis leaves status at "reconnecting" when disconnect() cancels a pending reconnect, though
    // no socket or timer remains; report what we did instead.
    status: () => (!redis ? "memory" : closed ? "closed" : redis.status),
    ready(timeoutMs = 2000) {
      const client = redis;
      if (!client) return Promise.resolve(true);
      if (client.status === "ready") return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          client.off("ready", onReady);
          resolve(false);
        }, timeoutMs);
        timer.unref();
        const onReady = () => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once("ready", onReady);
      });
    },
    close() {
      const client = redis;
      if (!client) return Promise.resolve();
      closing ??= (async () => {
        if (client.status === "ready") {
          // QUIT lets Redis finish pending replies; do not wait on a hung server for long.
          const quit = client.quit().then(
            () => undefined,
            () => undefined,
          );
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<void>((resolve) => {
            timer = setTimeout(resolve, 1000);
            timer.unref();
          });
          await Promise.race([quit, timeout]);
          clearTimeout(timer);
        }
        client.disconnect(); // also stops any reconnect timer
        closed = true;
      })();
      return closing;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One instance per process

const SHARED = Symbol.for("agency-site.rateLimits");

/**
 * The process-wide instance, created on first use and kept on globalThis so that re-importing
 * the server build (remix dev re-imports it on every change) does not open another Redis client
 * or add another signal listener each time. Its close() runs on the first SIGTERM/SIGINT, next
 * to remix-serve's own server.close(): without that, an open Redis connection keeps the process
 * alive after remix-serve has stopped serving (see the module comment). Requests still in flight
 * after the signal fall back to the in-memory insurance limiters.
 */
export function getSharedRateLimits(cfg: { redisUrl?: string | undefined }, opts?: RateLimitOptions): RateLimits {
  const store = globalThis as typeof globalThis & { [SHARED]?: RateLimits };
  let limits = store[SHARED];
  if (!limits) {
    const created = createRateLimits(cfg, opts);
    limits = created;
    store[SHARED] = created;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        void created.close();
      });
    }
  }
  return limits;
}

// ---------------------------------------------------------------------------------------------
// Client identity

export interface ClientKeyOptions {
  trustProxy: boolean;
  /** How many trusted proxies append to X-Forwarded-For in front of us. Default 1. */
  proxyHops?: number;
}

/** Strip brackets, ports and zone ids; return a canonical address or undefined. */
function parseAddress(raw: string): { version: 4 | 6; address: string } | undefined {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed?.[1]) s = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = s.replace(/%.*$/, "");
  const version = isIP(s);
  if (version === 4) return { version: 4, address: s };
  if (version !== 6) return undefined;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(s);
  if (mapped?.[1]) return { version: 4, address: mapped[1] };
  return { version: 6, address: s.toLowerCase() };
}

/** The first four hextets of a valid IPv6 address (its /64 network). */
function ipv6Prefix64(address: string): string {
  let s = address;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = s.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const missing = 8 - headParts.length - tailParts.length;
  const groups = tail === undefined ? headParts : [...headParts, ...Array<string>(missing).fill("0"), ...tailParts];
  return groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":");
}

/**
 * The rate-limit key of the client: "ip:<IPv4>", "ip6:<first 64 bits>::/64" (one household or
 * server gets a whole /64, so per-address keys would be free to rotate), or SITE_KEY when there is
 * no trusted proxy, no X-Forwarded-For, or the entry our proxy wrote is not an IP address.
 */
export function clientKey(request: Request, { trustProxy, proxyHops = 1 }: ClientKeyOptions): string {
  if (!trustProxy) return SITE_KEY;
  const header = request.headers.get("x-forwarded-for");
  if (!header) return SITE_KEY;
  const entries = header.split(",");
  const hops = Math.max(1, Math.floor(proxyHops));
  const entry = entries[entries.length - hops];
  if (entry === undefined) return SITE_KEY;
  const parsed = parseAddress(entry);
  if (!parsed) return SITE_KEY;
  return parsed.version === 4 ? `ip:${parsed.address}` : `ip6:${ipv6Prefix64(parsed.address)}::/64`;
}

/**
 * Every Redis connection this server makes (REDIS_URL, ioredis), made here, each kind with the
 * options its users need, and watched so its comings and goings are JSON log lines:
 * `<event>_ready` each time it becomes usable, `<event>_down` once when a usable connection fails
 * (not again for each reconnect attempt while Redis stays away). Without an "error" listener
 * ioredis would print every failed reconnect attempt as plain text.
 */
import { Redis } from "ioredis";
import type { Logger } from "./log";

interface Watch {
  /** The event names' stem, e.g. "draft_store" logs `draft_store_ready` / `draft_store_down`. */
  event: string;
  /** Fields on both lines, e.g. `{ connection: "worker" }`. */
  fields?: Record<string, unknown>;
  /** What the owner does meanwhile, said on the down line, e.g. "memory". */
  fallback?: string;
}

/** `then` at each "ready", and now if the connection is ready already (a shared one may be). */
export function onReady(connection: Redis, then: () => void) {
  connection.on("ready", then);
  if (connection.status === "ready") queueMicrotask(then);
}

export function watchRedis<C extends Redis>(connection: C, log: Pick<Logger, "info" | "warn">, { event, fields = {}, fallback }: Watch): C {
  let up = false;
  onReady(connection, () => {
    up = true;
    log.info(fields, `${event}_ready`);
  });
  connection.on("error", (error: Error) => {
    if (up) log.warn({ err: error, ...fields, ...(fallback ? { fallback } : {}) }, `${event}_down`);
    up = false;
  });
  return connection;
}

/** How long a stop waits for Redis to answer (QUIT, a queue's last writes) before it drops the connection. */
export const QUIT_WAIT_MS = 1_000;
/**
 * A dropped connection whose Redis does not close its end (paused) is destroyed after this long
 * (ioredis's disconnectTimeout, 2 s by default): the commands still waiting on it fail then.
 */
const DROP_MS = 500;

/**
 * Closes a connection: QUIT, so what was sent before it is answered first, and a disconnect once
 * Redis has not answered within `ms` (down, paused, unreachable): a stop never waits on Redis.
 * Commands still waiting then fail.
 */
export async function closeConnection(connection: Redis, ms = QUIT_WAIT_MS) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([connection.quit().catch(() => undefined), late]);
  clearTimeout(timer);
  connection.disconnect();
}

/** A shared connection and how many users it has; it is closed when the last one lets go. */
const shared = new Map<string, { connection: Redis; users: number }>();

/**
 * For what a request waits on (drafts, rate limits): a command fails at once while Redis is away,
 * and after `commandTimeoutMs` while it is slow, and the store answers from memory instead. Users
 * with the same URL and timeout share one connection; `release` is each one's close.
 */
export function requestConnection(url: string, commandTimeoutMs = 500) {
  const key = `${commandTimeoutMs} ${url}`;
  const entry = shared.get(key) ?? {
    connection: new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs, disconnectTimeout: DROP_MS }),
    users: 0,
  };
  entry.users++;
  shared.set(key, entry);
  let released = false;
  return {
    connection: entry.connection,
    async release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      shared.delete(key);
      await closeConnection(entry.connection);
    },
  };
}

/** The funnel's: like a request's, but a count made while the connection is being made waits for it (up to half a second) rather than going to the local file. */
export const countConnection = (url: string) => new Redis(url, { maxRetriesPerRequest: 0, commandTimeout: 500, disconnectTimeout: DROP_MS });

/** The lead queue's own commands and BullMQ's Queue: they fail fast too (the lead then waits in the local record), after 2 s to connect. */
export const queueConnection = (url: string) =>
  new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, disconnectTimeout: DROP_MS });

/** BullMQ's Worker: its commands wait for Redis however long it is away (maxRetriesPerRequest: null, as BullMQ requires); it makes its own blocking copy. */
export const workerConnection = (url: string) => new Redis(url, { maxRetriesPerRequest: null, disconnectTimeout: DROP_MS });

/** The lead command's (`npm run leads`): an operator waits for its answer, so it gives up soon. */
export const operatorConnection = (url: string) => new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 3_000, lazyConnect: true });

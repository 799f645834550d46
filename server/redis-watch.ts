/**
 * The one watcher for our Redis connections (rate limits, lead queue, drafts). Without an "error"
 * listener ioredis prints every failed reconnect attempt; this logs changes of state instead, as
 * JSON: `<event>_ready` each time the connection becomes usable, `<event>_down` once when a usable
 * connection fails (not again for each reconnect attempt while Redis stays away).
 */
import type { Redis } from "ioredis";
import type { Logger } from "./log";

export interface RedisWatch {
  /** The event names' stem, e.g. "draft_store" logs `draft_store_ready` / `draft_store_down`. */
  event: string;
  /** Fields on both lines, e.g. `{ connection: "worker" }`. */
  fields?: Record<string, unknown>;
  /** What the owner does meanwhile, said on the down line, e.g. "memory". */
  fallback?: string;
}

export function watchRedis<C extends Redis>(connection: C, log: Pick<Logger, "info" | "warn">, { event, fields = {}, fallback }: RedisWatch): C {
  let up = false;
  connection.on("ready", () => {
    up = true;
    log.info(fields, `${event}_ready`);
  });
  connection.on("error", (error: Error) => {
    if (up) log.warn({ err: error, ...fields, ...(fallback ? { fallback } : {}) }, `${event}_down`);
    up = false;
  });
  return connection;
}

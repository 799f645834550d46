/**
 * Runs the Redis path against a REAL redis-server (Debian's /usr/bin/redis-server), started on a
 * free loopback port without persistence and killed at the end. Skipped, loudly, only when the
 * binary is missing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { Redis } from "ioredis";
import { transformWithEsbuild } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createRateLimits, type RateLimits, SITE_KEY } from "./rate-limit.server";

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? "/usr/bin/redis-server";
const haveRedis = existsSync(REDIS_BIN);
if (!haveRedis) {
  console.warn(`SKIPPING the Redis rate-limit tests: ${REDIS_BIN} not found (apt-get install redis-server)`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => (address && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_BIN,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
    { stdio: "ignore" },
  );
  const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on("error", () => undefined);
  for (let i = 0; i < 100; i += 1) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      probe.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not start on port ${port}`);
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

const rule = { points: 3, durationSeconds: 60 };
const rules = { perClient: { posts: rule, deliveries: { points: 2, durationSeconds: 600 } }, siteWide: { posts: rule, deliveries: rule } };

describe.skipIf(!haveRedis)(`rate limits shared through a real Redis (${REDIS_BIN})`, () => {
  let port = 0;
  let server: ChildProcess | undefined;
  const prefix = `rl-test-${process.pid}-${Date.now()}`;
  const opened: RateLimits[] = [];

  function open(): RateLimits {
    const limits = createRateLimits({ redisUrl: `redis://127.0.0.1:${port}/0` }, { ...rules, prefix });
    opened.push(limits);
    return limits;
  }

  beforeAll(async () => {
    port = await freePort();
    server = await startRedis(port);
  });

  afterAll(async () => {
    await Promise.all(opened.map((l) => l.close()));
    await stop(server);
    await rm(path.join(process.cwd(), "node_modules", ".cache", `rl-exit-${process.pid}`), { recursive: true, force: true });
  });

  it("two instances (two containers) share one count", async () => {
    const a = open();
    const b = open();
    expect(await a.ready()).toBe(true);
    expect(await b.ready()).toBe(true);
    expect(a.status()).toBe("ready");

    const key = "ip:203.0.113.50";
    expect((await a.consumePost(key)).ok).toBe(true);
    expect((await b.consumePost(key)).ok).toBe(true);
    expect((await a.consumePost(key)).ok).toBe(true);
    // the 4th post is refused on BOTH instances although each saw fewer than 3
    const refusedB = await b.consumePost(key);
    expect(refusedB.ok).toBe(false);
    if (!refusedB.ok) expect(refusedB.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect((await a.consumePost(key)).ok).toBe(false);

    // deliveries are their own bucket, shared too
    expect((await a.consumeDelivery(key)).ok).toBe(true);
    expect((await b.consumeDelivery(key)).ok).toBe(true);
    expect((await a.consumeDelivery(key)).ok).toBe(false);

    // and the counts really live in Redis, with an expiry
    const direct = new Redis({ port, host: "127.0.0.1" });
    try {
      expect(await direct.get(`${prefix}:posts:${key}`)).toBe("5");
      const ttl = await direct.pttl(`${prefix}:posts:${key}`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await direct.exists(`${prefix}:site-posts:${SITE_KEY}`)).toBe(0);
    } finally {
      direct.disconnect();
    }
    await Promise.all([a.close(), b.close()]);
  });

  it("falls back to in-memory insurance when Redis is unreachable from the start, without throwing", async () => {
    const deadPort = await freePort();
    const limits = createRateLimits({ redisUrl: `redis://127.0.0.1:${deadPort}` }, { ...rules, prefix });
    try {
      expect(await limits.ready(300)).toBe(false);
      const started = Date.now();
      const results = [];
      for (let i = 0; i < 4; i += 1) results.push((await limits.consumePost("ip:198.51.100.1")).ok);
      expect(results).toEqual([true, true, true, false]); // the insurance limiter still counts
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await limits.close();
    }
    expect(limits.status()).toBe("closed");
  });

  /**
   * In a separate Node process (as under remix-serve): with a Redis client open the process cannot
   * exit on its own; after close() it does. Compiles the two modules with Vite's esbuild into
   * node_modules/.cache so the child resolves ioredis and rate-limiter-flexible like the app does.
   */
  async function exitsOnItsOwn(redisUrl: string, callClose: boolean): Promise<boolean> {
    const dir = path.join(process.cwd(), "node_modules", ".cache", `rl-exit-${process.pid}`);
    await mkdir(dir, { recursive: true });
    for (const name of ["log.server", "rate-limit.server"]) {
      const source = await readFile(path.join(import.meta.dirname, `${name}.ts`), "utf8");
      const { code } = await transformWithEsbuild(source, `${name}.ts`, { format: "esm" });
      await writeFile(path.join(dir, `${name}.mjs`), code.replace('"./log.server"', '"./log.server.mjs"'));
    }
    const script = `
      import { createRateLimits } from ${JSON.stringify(pathToFileURL(path.join(dir, "rate-limit.server.mjs")).href)};
      const limits = createRateLimits({ redisUrl: ${JSON.stringify(redisUrl)} });
      await limits.ready(500);
      await limits.consumePost("ip:192.0.2.1");
      await limits.consumeDelivery("ip:192.0.2.1");
      ${callClose ? "await limits.close();" : ""}
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!exited) await stop(child);
    return exited;
  }

  it("a process holding a Redis client exits on its own only after close()", async () => {
    const live = `redis://127.0.0.1:${port}`;
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const [liveClosed, liveOpen, deadClosed, deadOpen] = await Promise.all([
      exitsOnItsOwn(live, true),
      exitsOnItsOwn(live, false),
      exitsOnItsOwn(dead, true),
      exitsOnItsOwn(dead, false),
    ]);
    expect({ liveClosed, liveOpen, deadClosed, deadOpen }).toEqual({
      liveClosed: true,
      liveOpen: false, // the open connection keeps the event loop alive
      deadClosed: true,
      deadOpen: false, // so does the reconnect timer
    });
  }, 20_000);

  it("keeps answering through a Redis outage, and close() ends the client", async () => {
    const limits = open();
    expect(await limits.ready()).toBe(true);
    expect((await limits.consumePost("ip:192.0.2.77")).ok).toBe(true);

    await stop(server);
    // right after the kill (the client may not have noticed yet: command error or commandTimeout)
    let started = Date.now();
    expect((await limits.consumePost("ip:192.0.2.77")).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    // and once it has noticed (rejectIfRedisNotReady: straight to the insurance limiter)
    for (let i = 0; i < 40 && limits.status() === "ready"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(limits.status()).not.toBe("ready");
    started = Date.now();
    expect((await limits.consumePost("ip:192.0.2.77")).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(100);

    await limits.close();
    expect(limits.status()).toBe("closed");
    await limits.close(); // idempotent
  });
});

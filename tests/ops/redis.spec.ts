/**
 * With REDIS_URL, on a real redis-server started by each test (tests/support/redis.ts): two
 * servers share the lead queue (one killed -9, the other delivers its leads) and the calculator's
 * drafts (for the browser that made them only); SIGTERM closes every Redis connection; a Redis
 * that may evict keys is warned about. Each test starts its own servers from build/ (opsPort
 * 13-14, 16 and 76-78; fake form services opsPort 51 and 85).
 */
import { Redis } from "ioredis";
import { expect, test } from "@playwright/test";
import { estimate, formatUsd } from "../../app/calculator/pricing";
import { calculatorText } from "../../app/content/calculator";
import { startFakeFormService } from "../support/fake-form-service";
import { startRedis } from "../support/redis";
import { dataDir, events, keyed, postContact, serve } from "../support/server";
import { opsPort } from "../support/sites";

test("with REDIS_URL two servers share the queue: leads stored by one that is then killed -9 are delivered by the other", async () => {
  // Over 30 s: a job the killed server held is taken by the other only after its lock lapses and a
  // stalled check (5 s each); the others wait for their retries on the real schedule.
  test.setTimeout(90_000);
  const redis = await startRedis();
  const fake = await startFakeFormService({ port: opsPort(51) });
  fake.setMode("fail500");
  const [a, b] = [serve(opsPort(13), keyed(fake, dataDir(), { REDIS_URL: redis.url })), serve(opsPort(14), keyed(fake, dataDir(), { REDIS_URL: redis.url }))];
  try {
    await Promise.all([a.listening, b.listening]);
    await expect.poll(() => a.stdout()).toContain("lead_queue_redis_ready");
    const tokens = ["shared-1", "shared-2", "shared-3"];
    for (const [i, token] of tokens.entries()) expect((await postContact(a.url, `Hello (${token}).`, { localAddress: `127.0.0.${20 + i}` })).status).toBe(303);
    await expect.poll(() => tokens.every((t) => fake.received(t).length > 0)).toBe(true);
    a.child.kill("SIGKILL");
    await a.exited;
    fake.setMode("ok");
    await expect.poll(() => tokens.map((t) => fake.accepted(t).length), { timeout: 60_000 }).toEqual([1, 1, 1]);
    // The service counts a lead as it answers; the server logs it once it has read that answer.
    await expect.poll(() => events(b.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(3);
  } finally {
    a.kill();
    b.kill();
    await fake.close();
    await redis.stop();
  }
});

test("with REDIS_URL, a calculator step posted without JavaScript to one server is rendered by another, for the same browser only", async () => {
  const redis = await startRedis();
  const [a, b] = [serve(opsPort(77), { REDIS_URL: redis.url, DATA_DIR: dataDir() }), serve(opsPort(78), { REDIS_URL: redis.url, DATA_DIR: dataDir() })];
  try {
    await Promise.all([a.listening, b.listening]);
    for (const server of [a, b]) await expect.poll(() => server.stdout().includes('"event":"draft_store_ready"')).toBe(true);
    const body = new URLSearchParams({ formName: "calculator", "state.step": "1", service: "zoho" }).toString();
    const posted = await fetch(`${a.url}/?index`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: a.url, "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(posted.status).toBe(303);
    // The browser that posted, with the cookie it was given (decision 0020): any server renders its draft.
    const cookie = posted.headers.get("set-cookie")!.split(";")[0]!;
    const html = await (await fetch(b.url + posted.headers.get("location")!, { headers: { cookie } })).text();
    expect(html).toMatch(/Step (<!-- -->)?2(<!-- -->)? of/);
    expect(html).toContain(formatUsd(estimate({ service: "zoho" })));
    expect(html).not.toContain(calculatorText.expired);
    // Any other browser, on either server, gets nothing of it.
    expect(await (await fetch(b.url + posted.headers.get("location")!)).text()).toContain(calculatorText.expired);
  } finally {
    a.kill();
    b.kill();
    await redis.stop();
  }
});

test("with REDIS_URL, SIGTERM closes every Redis connection and the process exits", async () => {
  const redis = await startRedis();
  const probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const server = serve(opsPort(16), { REDIS_URL: redis.url, DATA_DIR: dataDir() });
  try {
    await server.listening;
    // The SQLite store opens in milliseconds: wait for the limits' Redis connection, not just the start.
    await expect.poll(() => server.stdout()).toContain("rate_limit_store_ready");
    expect((await postContact(server.url, "Counted in Redis")).status).toBe(303);
    const myId = Number(await probe.call("CLIENT", "ID"));
    const others = async () =>
      String(await probe.call("CLIENT", "LIST"))
        .split("\n")
        .filter((l) => l.startsWith("id=") && !l.startsWith(`id=${myId} `)).length;
    expect(await probe.keys("rl:*")).not.toEqual([]);
    expect(await others()).toBeGreaterThan(0);
    server.child.kill("SIGTERM");
    // Exit 0 is the stop ending in time, having closed what it holds: one held past 13.5 s ends with
    // code 1 (docs/operations.md, "Stopping": within 15 s).
    expect((await server.exited).code).toBe(0);
    expect(server.stdout()).toContain('"event":"stopped"');
    await expect.poll(others, { message: "connections Redis still has from the server" }).toBe(0);
  } finally {
    server.kill();
    probe.disconnect();
    await redis.stop();
  }
});

test("with REDIS_URL on a Redis that may evict (allkeys-lru), one JSON warning says so, and every line of the log is JSON", async () => {
  const redis = await startRedis(undefined, ["--maxmemory-policy", "allkeys-lru"]);
  const fake = await startFakeFormService({ port: opsPort(85) });
  const server = serve(opsPort(76), keyed(fake, dataDir(), { REDIS_URL: redis.url }));
  try {
    await server.listening;
    expect((await postContact(server.url, "Through Redis (evict-test).")).status).toBe(303);
    await expect.poll(() => fake.accepted("evict-test").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;
    const log = events(server.stdout()); // throws on a line that is not JSON
    expect(log.filter((e) => e.event === "redis_eviction_policy")).toEqual([expect.objectContaining({ level: "warn", policy: "allkeys-lru" })]);
    expect(server.stdout() + server.stderr()).not.toContain("IMPORTANT");
    expect(server.stderr()).toBe("");
  } finally {
    server.kill();
    await fake.close();
    await redis.stop();
  }
});

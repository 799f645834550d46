/**
 * Exactly once where at-least-once used to show (decision 0033), with real processes: two sites in
 * compose.yaml's shape (each its own data folder, one shared Redis) through a Redis restarted
 * empty, and a site paused with SIGSTOP past FORM_TIMEOUT_MS while the form service answers, with
 * SQLite alone and with Redis; where it cannot hold (a kill -9 after the service took the lead),
 * each copy carries the lead's reference as its idempotency key. Each test starts its own servers
 * from build/ (opsPort 100-102, 106 and 108) and fake form service (opsPort 103-105 and 107) and Redis.
 */
import { expect, test } from "@playwright/test";
import { startFakeFormService } from "../support/fake-form-service";
import { startRedis } from "../support/redis";
import { dataDir, deliveredOnce, events, keyed, leadsCommand, postContact, serve, sleep } from "../support/server";
import { opsPort } from "../support/sites";

/** What `npm run leads -- status` says is still pending in a site's data folder (with Redis: not confirmed). */
const pending = async (dir: string, redisUrl: string) =>
  (JSON.parse((await leadsCommand(dir, { REDIS_URL: redisUrl })("status")).stdout) as { pending: number }).pending;

test("two sites with their own data folders and one Redis, wiped just after the other site delivered: no lead is queued again or sent twice", async () => {
  // Over 30 s: after the wipe, a lead Redis lost is queued again once it has been gone for one
  // lease (7 s here); the test waits until the site that took them has heard of every delivery.
  test.setTimeout(60_000);
  const redis = await startRedis();
  const fake = await startFakeFormService({ port: opsPort(103) });
  const dirs = [dataDir(), dataDir()];
  const env = { REDIS_URL: redis.url, FORM_TIMEOUT_MS: "2000" };
  const [taker, other] = [serve(opsPort(100), keyed(fake, dirs[0]!, env)), serve(opsPort(101), keyed(fake, dirs[1]!, env))];
  try {
    await Promise.all([taker.listening, other.listening]);
    for (const site of [taker, other]) await expect.poll(() => site.stdout()).toContain("lead_queue_redis_ready");
    const tokens = Array.from({ length: 12 }, (_, i) => `wiped-${i}-`);
    for (const [i, token] of tokens.entries())
      expect((await postContact(taker.url, `Taken by one site (${token}).`, { localAddress: `127.0.13.${i + 1}` })).status).toBe(303);
    // Every lead sent, about half by the other site; the one that took them looks every 2 s, so
    // it has not heard of most of the other's deliveries yet when Redis loses everything.
    await expect.poll(() => tokens.every((t) => fake.accepted(t).length > 0)).toBe(true);
    const byOther = events(other.stdout()).filter((e) => e.event === "lead_delivered").length;
    await redis.stop();
    await sleep(300); // the fault: Redis away for 300 ms
    await redis.restart(); // empty: no AOF, no RDB
    expect(byOther, "leads the other site delivered").toBeGreaterThan(0);

    // The site that took them hears of every delivery, wherever it happened...
    await expect.poll(() => pending(dirs[0]!, redis.url), { timeout: 30_000 }).toBe(0);
    // ...and none was queued again or sent a second time.
    await deliveredOnce(fake, tokens);
    expect(events(taker.stdout()).filter((e) => e.event === "lead_requeued")).toEqual([]);
  } finally {
    taker.kill();
    other.kill();
    await fake.close();
    await redis.stop();
  }
});

for (const store of ["sqlite", "redis"] as const) {
  test(`${store}: a site paused (SIGSTOP) past FORM_TIMEOUT_MS while the form service answers counts that answer on resume and sends nothing twice`, async () => {
    // Over 30 s: the site is paused for 12 s, then watched past its first retry (1-2 s) and one lease.
    test.setTimeout(60_000);
    const redis = store === "redis" ? await startRedis() : undefined;
    const fake = await startFakeFormService({ port: opsPort(store === "redis" ? 105 : 104) });
    // The service takes 1.5 s to answer; the site gives up on it after 4 s of its own clock.
    fake.setMode("slow", 1_500);
    const site = serve(opsPort(store === "redis" ? 102 : 106), keyed(fake, dataDir(), { FORM_TIMEOUT_MS: "4000", ...(redis ? { REDIS_URL: redis.url } : {}) }));
    try {
      await site.listening;
      if (redis) await expect.poll(() => site.stdout()).toContain("lead_queue_redis_ready");
      const tokens = [1, 2, 3].map((i) => `paused-${store}-${i}-`);
      for (const [i, token] of tokens.entries())
        expect((await postContact(site.url, `Sent while paused (${token}).`, { localAddress: `127.0.14.${i + 1}` })).status).toBe(303);
      // Mid-send: the service has every lead and has not answered yet.
      await expect.poll(() => tokens.every((t) => fake.received(t).length === 1)).toBe(true);
      site.child.kill("SIGSTOP");
      // The service answers each within 1.5 s, to a site that cannot read it until it resumes.
      await expect.poll(() => tokens.map((t) => fake.accepted(t).length)).toEqual([1, 1, 1]);
      // The fault: paused 12 s, three times its FORM_TIMEOUT_MS, and past BullMQ's 5 s lock.
      await sleep(12_000);
      site.child.kill("SIGCONT");

      await expect.poll(() => events(site.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(3);
      // A second send would come from a retry (1-2 s after an attempt taken for failed) or, with
      // Redis, BullMQ's stalled check (every 5 s) taking back a job whose lock ran out in the
      // pause: 8 s hold the first check after the resume and a retry after it.
      await deliveredOnce(fake, tokens, { settle: 8_000 });
      expect(
        tokens.map((t) => fake.received(t).length),
        "sends per lead",
      ).toEqual([1, 1, 1]);
      expect(events(site.stdout()).filter((e) => e.event === "lead_delivery_failed")).toEqual([]);
    } finally {
      site.child.kill("SIGCONT");
      site.kill();
      await fake.close();
      await redis?.stop();
    }
  });
}

test("a site killed -9 after the webhook took a lead and before it answered sends it again on restart, with the lead's reference as the Idempotency-Key of both copies", async () => {
  // Over 30 s: the restarted site waits for the killed one's claim to run out (FORM_TIMEOUT_MS + 5 s).
  test.setTimeout(60_000);
  const fake = await startFakeFormService({ port: opsPort(107) });
  fake.setMode("slow", 2_000);
  const env = keyed(fake, dataDir(), { FORM_PROVIDER: "webhook", FORM_TIMEOUT_MS: "3000" });
  const first = serve(opsPort(108), env);
  let second: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    const answer = await postContact(first.url, "Killed mid-send (idempotent-1).");
    expect(answer.status).toBe(303);
    await expect.poll(() => fake.received("idempotent-1").length).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;
    fake.setMode("ok");
    second = serve(opsPort(108), env);
    await second.listening;
    await expect.poll(() => fake.received("idempotent-1").length, { timeout: 20_000 }).toBe(2);
    const reference = /Reference: (\S+)$/.exec(String((fake.received("idempotent-1")[0] as { message: string }).message))?.[1];
    expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
    expect(fake.headers("idempotent-1").map((h) => h["idempotency-key"])).toEqual([reference, reference]);
  } finally {
    first.kill();
    second?.kill();
    await fake.close();
  }
});

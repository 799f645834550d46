import { Redis } from "ioredis";
import { expect, it, onTestFinished } from "vitest";
import { createDraftStore } from "./drafts";
import { createRateLimits } from "./rate-limits";
import { startRedis } from "../tests/support/redis";
import { recordingLog, until } from "../tests/support/quiet-log";
import { watchRedis } from "./redis";

it("logs ready, down once however many reconnects fail, and ready again when Redis is back", async () => {
  const { log, lines } = recordingLog();
  const redis = await startRedis();
  onTestFinished(() => redis.stop());
  let errors = 0;
  const connection = watchRedis(new Redis(redis.url, { retryStrategy: () => 20 }), log, {
    event: "thing_store",
    fields: { store: "redis" },
    fallback: "memory",
  });
  onTestFinished(() => connection.disconnect());
  connection.on("error", () => errors++);
  await until(() => lines.length === 1);
  expect(lines[0]).toMatchObject({ level: "info", event: "thing_store_ready", store: "redis" });

  await redis.stop();
  await until(() => errors >= 3);
  expect(lines.slice(1)).toEqual([
    expect.objectContaining({ level: "warn", event: "thing_store_down", store: "redis", fallback: "memory", err: expect.anything() }),
  ]);

  await redis.restart();
  await until(() => lines.length === 3);
  expect(lines[2]).toMatchObject({ event: "thing_store_ready" });
});

it("the rate limits and the drafts share one connection to Redis, closed once both are", async () => {
  const redis = await startRedis();
  onTestFinished(() => redis.stop());
  const probe = new Redis(redis.url);
  onTestFinished(() => probe.disconnect());
  const { log, count } = recordingLog();
  const others = async () =>
    String(await probe.client("LIST"))
      .trim()
      .split("\n").length - 1; // all but the probe
  const limits = createRateLimits(redis.url, log);
  const drafts = createDraftStore({ redisUrl: redis.url, log });
  await until(() => count("rate_limit_store_ready") === 1 && count("draft_store_ready") === 1);
  expect(await others()).toBe(1);
  await limits.close();
  expect(await others()).toBe(1);
  await drafts.close();
  await expect.poll(others).toBe(0);
});

it("a store that joins the shared connection once it is ready still hears it is (its ready line; its Redis budget and missed deletions wait on the same event)", async () => {
  const redis = await startRedis();
  onTestFinished(() => redis.stop());
  const { log, count } = recordingLog();
  const limits = createRateLimits(redis.url, log);
  onTestFinished(() => limits.close());
  await until(() => count("rate_limit_store_ready") === 1);
  const drafts = createDraftStore({ redisUrl: redis.url, log });
  onTestFinished(() => drafts.close());
  await until(() => count("draft_store_ready") === 1);
});

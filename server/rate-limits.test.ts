import { describe, expect, it } from "vitest";
import { quietLog, recordingLog, until } from "../tests/support/quiet-log";
import { startRedis } from "../tests/support/redis";
import { clientKey, createRateLimits, LIMITS } from "./rate-limits";

describe("clientKey", () => {
  it.each([
    ["203.0.113.7", "ip:203.0.113.7"],
    ["::ffff:203.0.113.7", "ip:203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "ip6:2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "ip6:2001:db8:1:2::/64"],
    ["2001:DB8:0:0:ffff::1", "ip6:2001:db8:0:0::/64"],
    [undefined, "unknown"],
    ["not an address", "unknown"],
  ])("%s counts as %s", (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});

describe("createRateLimits in memory", () => {
  it("lets each client make its own posts, then says how long to wait", async () => {
    const limits = createRateLimits(undefined, quietLog);
    for (let i = 0; i < LIMITS.posts.points; i++) expect(await limits.take("posts", "ip:203.0.113.1")).toBe(0);
    const wait = await limits.take("posts", "ip:203.0.113.1");
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(LIMITS.posts.duration);
    expect(await limits.take("posts", "ip:203.0.113.2")).toBe(0);
    await limits.close();
  });
});

describe("createRateLimits with Redis (a real redis-server)", () => {
  it("counts every process's posts together, and falls back to memory when Redis goes away", async () => {
    const redis = await startRedis();
    const { log, count } = recordingLog();
    // A command slower than production's 500 ms (a busy test machine) would count in memory instead.
    const [a, b] = [createRateLimits(redis.url, log, 5_000), createRateLimits(redis.url, log, 5_000)];
    try {
      await until(() => count("rate_limit_store_ready") === 2);
      const client = `ip:198.51.100.${process.pid % 200}`;
      for (let i = 0; i < LIMITS.posts.points; i++) expect(await (i % 2 ? a : b).take("posts", client)).toBe(0);
      expect(await a.take("posts", client)).toBeGreaterThan(0);
      expect(await b.take("posts", client)).toBeGreaterThan(0);
      await redis.stop();
      expect(await a.take("posts", "ip:203.0.113.99")).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close(), redis.stop()]);
    }
  });
});

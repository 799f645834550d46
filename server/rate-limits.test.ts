import { describe, expect, it } from "vitest";
import { createLogger } from "./log";
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
  it("lets each client make its own posts and leads, then says how long to wait", async () => {
    const limits = createRateLimits(undefined, createLogger());
    for (let i = 0; i < LIMITS.leads.points; i++) expect(await limits.take("leads", "ip:203.0.113.1")).toBe(0);
    const wait = await limits.take("leads", "ip:203.0.113.1");
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(LIMITS.leads.duration);
    expect(await limits.take("leads", "ip:203.0.113.2")).toBe(0);
    expect(await limits.take("posts", "ip:203.0.113.1")).toBe(0);
  });

  it("gives a lead back when it could not be stored", async () => {
    const limits = createRateLimits(undefined, createLogger());
    for (let i = 0; i < LIMITS.leads.points; i++) await limits.take("leads", "ip:203.0.113.3");
    await limits.refund("ip:203.0.113.3");
    expect(await limits.take("leads", "ip:203.0.113.3")).toBe(0);
    expect(await limits.take("leads", "ip:203.0.113.3")).toBeGreaterThan(0);
    await limits.close();
  });
});

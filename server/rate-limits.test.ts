import { describe, expect, it } from "vitest";
import { quietLog } from "../tests/support/quiet-log";
import { leadDatabases } from "../tests/support/engines";
import { clientKey, createRateLimits, LIMITS } from "./rate-limits";

describe("clientKey", () => {
  it.each([
    ["203.0.113.7", "ip:203.0.113.7"],
    ["::ffff:203.0.113.7", "ip:203.0.113.7"],
    ["::FFFF:203.0.113.7", "ip:203.0.113.7"],
    ["::ffff:cb00:7107", "ip:203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "ip6:2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "ip6:2001:db8:1:2::/64"],
    ["2001:DB8:0:0:ffff::1", "ip6:2001:db8:0:0::/64"],
    [undefined, "unknown"],
    ["not an address", "unknown"],
  ])("%s counts as %s", (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});

const { cluster: pg, open } = leadDatabases();

// A client's own posts, then how long to wait, on the real server's limits (SQLite's: in memory):
// tests/security.spec.ts (the thirty-first post), tests/ops/proxy.spec.ts (another visitor served).
describe("createRateLimits on PostgreSQL", () => {
  it("counts every container's posts together; counts in memory while PostgreSQL is away, from the start or later", async () => {
    await pg().kill();
    const url = `${pg().url.replace(/\/postgres$/, "")}/limits`;
    // A wait longer than production's 500 ms: a busy test machine must not look like an outage.
    const a = createRateLimits(open({ databaseUrl: url, file: "" }), quietLog, 5_000);
    expect(await a.take("posts", "ip:203.0.113.9")).toBe(0); // no table yet: in memory
    await pg().restart();
    expect(await pg().database("limits")).toBe(url);
    const client = "ip:198.51.100.7";
    expect(await a.take("posts", client)).toBe(0);
    const probe = open({ databaseUrl: url, file: "" });
    expect(await probe.get("SELECT points FROM rate_limits WHERE key = ?", [`rl:posts:${client}`])).toEqual({ points: 1 });
    const b = createRateLimits(open({ databaseUrl: url, file: "" }), quietLog, 5_000);
    for (let i = 1; i < LIMITS.posts.points; i++) expect(await (i % 2 ? b : a).take("posts", client)).toBe(0);
    expect(await a.take("posts", client)).toBeGreaterThan(0);
    expect(await b.take("posts", client)).toBeGreaterThan(0);
    await pg().kill();
    expect(await a.take("posts", "ip:203.0.113.99")).toBe(0);
  });
});

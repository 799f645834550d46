import { describe, expect, it } from "vitest";

import {
  clientKey,
  createRateLimits,
  getSharedRateLimits,
  PER_CLIENT_LIMITS,
  SITE_KEY,
  SITE_WIDE_LIMITS,
} from "./rate-limit.server";

async function drain(consume: () => Promise<{ ok: boolean }>, n: number): Promise<boolean[]> {
  const results: boolean[] = [];
  for (let i = 0; i < n; i += 1) results.push((await consume()).ok);
  return results;
}

describe("createRateLimits (memory)", () => {
  it("allows PER_CLIENT_LIMITS.posts posts a minute per client, then refuses with Retry-After", async () => {
    const limits = createRateLimits({});
    expect(limits.status()).toBe("memory");
    const n = PER_CLIENT_LIMITS.posts.points;
    expect(await drain(() => limits.consumePost("ip:203.0.113.1"), n)).toEqual(Array(n).fill(true));
    const refused = await limits.consumePost("ip:203.0.113.1");
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    // another client is unaffected
    expect((await limits.consumePost("ip:203.0.113.2")).ok).toBe(true);
    await limits.close();
  });

  it("limits deliveries separately from posts", async () => {
    const limits = createRateLimits({});
    const key = "ip:198.51.100.7";
    const n = PER_CLIENT_LIMITS.deliveries.points;
    expect(await drain(() => limits.consumeDelivery(key), n)).toEqual(Array(n).fill(true));
    const refused = await limits.consumeDelivery(key);
    expect(refused).toMatchObject({ ok: false });
    if (!refused.ok) expect(refused.retryAfterSeconds).toBeGreaterThan(590);
    expect((await limits.consumePost(key)).ok).toBe(true);
  });

  it("gives the shared site bucket the larger site-wide limits", async () => {
    const limits = createRateLimits({});
    const n = SITE_WIDE_LIMITS.deliveries.points;
    expect(n).toBeGreaterThan(PER_CLIENT_LIMITS.deliveries.points);
    expect(await drain(() => limits.consumeDelivery(SITE_KEY), n)).toEqual(Array(n).fill(true));
    expect((await limits.consumeDelivery(SITE_KEY)).ok).toBe(false);
  });

  it("opens again when the window ends", async () => {
    const rule = { points: 2, durationSeconds: 1 };
    const limits = createRateLimits({}, { perClient: { posts: rule, deliveries: rule } });
    expect(await drain(() => limits.consumePost("k"), 3)).toEqual([true, true, false]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await limits.consumePost("k")).ok).toBe(true);
  });

  it("keeps separate instances separate in memory (each process has its own counts)", async () => {
    const rule = { points: 1, durationSeconds: 60 };
    const a = createRateLimits({}, { perClient: { posts: rule, deliveries: rule } });
    const b = createRateLimits({}, { perClient: { posts: rule, deliveries: rule } });
    expect((await a.consumePost("k")).ok).toBe(true);
    expect((await b.consumePost("k")).ok).toBe(true);
  });

  it("leaves no timer that would keep the process alive", async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const limits = createRateLimits({});
    for (let i = 0; i < 50; i += 1) await limits.consumePost(`ip:192.0.2.${i}`);
    const after = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    expect(after).toBe(before);
    expect(await limits.ready()).toBe(true);
    await expect(limits.close()).resolves.toBeUndefined();
  });
});

describe("getSharedRateLimits", () => {
  it("returns one instance per process and registers one close() per signal", async () => {
    const before = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
    try {
      const first = getSharedRateLimits({});
      expect(getSharedRateLimits({})).toBe(first);
      expect(getSharedRateLimits({ redisUrl: "redis://ignored.example" })).toBe(first);
      expect(process.listenerCount("SIGTERM")).toBe(before.SIGTERM.length + 1);
      expect(process.listenerCount("SIGINT")).toBe(before.SIGINT.length + 1);
      expect(first.status()).toBe("memory");
    } finally {
      // do not leave a signal listener in the test worker (it would stop a SIGTERM from ending it)
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        for (const listener of process.listeners(signal)) {
          if (!before[signal].includes(listener)) process.off(signal, listener);
        }
      }
      delete (globalThis as Record<symbol, unknown>)[Symbol.for("agency-site.rateLimits")];
    }
  });
});

describe("clientKey", () => {
  const req = (xff?: string | string[]) => {
    const headers = new Headers();
    for (const v of typeof xff === "string" ? [xff] : (xff ?? [])) headers.append("X-Forwarded-For", v);
    return new Request("http://agency.example/", { method: "POST", headers });
  };
  const trusted = { trustProxy: true };

  it("is the site bucket without a trusted proxy, whatever the headers say", () => {
    expect(clientKey(req("203.0.113.9"), { trustProxy: false })).toBe(SITE_KEY);
    expect(clientKey(req(), trusted)).toBe(SITE_KEY);
  });

  it.each([
    ["203.0.113.9", "ip:203.0.113.9"],
    ["  203.0.113.9  ", "ip:203.0.113.9"],
    // the client-supplied left part is ignored: only our proxy's (right-most) entry counts
    ["1.1.1.1, 203.0.113.9", "ip:203.0.113.9"],
    ["evil, 8.8.8.8, 203.0.113.9", "ip:203.0.113.9"],
    ["203.0.113.9:51234", "ip:203.0.113.9"],
    ["::ffff:203.0.113.9", "ip:203.0.113.9"],
    ["2001:db8:abcd:12:1:2:3:4", "ip6:2001:db8:abcd:12::/64"],
    ["2001:DB8:ABCD:0012::9", "ip6:2001:db8:abcd:12::/64"],
    ["[2001:db8::1]:443", "ip6:2001:db8:0:0::/64"],
    ["2001:db8::", "ip6:2001:db8:0:0::/64"],
    ["::1", "ip6:0:0:0:0::/64"],
    ["fe80::1%eth0", "ip6:fe80:0:0:0::/64"],
    ["64:ff9b::198.51.100.1", "ip6:64:ff9b:0:0::/64"],
    ["203.0.113.9, unknown", SITE_KEY],
    ["203.0.113.9, ", SITE_KEY],
    ["999.1.1.1", SITE_KEY],
    ["_hidden", SITE_KEY],
    ["", SITE_KEY],
  ])("X-Forwarded-For %j → %s", (xff, key) => {
    expect(clientKey(req(xff), trusted)).toBe(key);
  });

  it("treats two IPv6 addresses of one /64 as one client", () => {
    expect(clientKey(req("2001:db8:1:2::a"), trusted)).toBe(clientKey(req("2001:db8:1:2:ffff:ffff:ffff:ffff"), trusted));
    expect(clientKey(req("2001:db8:1:2::a"), trusted)).not.toBe(clientKey(req("2001:db8:1:3::a"), trusted));
  });

  it("reads the last of several X-Forwarded-For headers", () => {
    expect(clientKey(req(["1.1.1.1", "203.0.113.9"]), trusted)).toBe("ip:203.0.113.9");
  });

  it("counts proxyHops from the right", () => {
    const chain = "1.1.1.1, 203.0.113.9, 10.0.0.2";
    expect(clientKey(req(chain), { trustProxy: true, proxyHops: 2 })).toBe("ip:203.0.113.9");
    expect(clientKey(req(chain), { trustProxy: true, proxyHops: 4 })).toBe(SITE_KEY);
  });
});

import { describe, expect, it } from "vitest";
import { expired, MAX_DELAY_MS, newLeadId, RETRY_WINDOW_MS, retryDelay } from "./schedule";

describe("retryDelay", () => {
  it("retries within seconds first, then backs off exponentially with jitter", () => {
    expect([retryDelay(1, () => 0), retryDelay(1, () => 1)]).toEqual([1_000, 2_000]);
    expect([retryDelay(2, () => 0), retryDelay(2, () => 1)]).toEqual([2_000, 4_000]);
    expect([retryDelay(5, () => 0), retryDelay(5, () => 1)]).toEqual([16_000, 32_000]);
  });

  it("never waits more than about 15 minutes, however many attempts", () => {
    for (const n of [10, 20, 100, 1_000]) {
      expect(retryDelay(n, () => 1)).toBe(MAX_DELAY_MS);
      expect(retryDelay(n, () => 0)).toBe(MAX_DELAY_MS / 2);
    }
  });

  it("keeps trying for at least 7 days: that is about 700 attempts at the cap", () => {
    let elapsed = 0;
    let n = 0;
    while (elapsed < RETRY_WINDOW_MS) elapsed += retryDelay(++n, () => 1);
    expect(n).toBeGreaterThan(650);
  });
});

describe("expired", () => {
  it("is true from 7 days after a lead was accepted (or re-queued)", () => {
    expect(expired(0, RETRY_WINDOW_MS - 1)).toBe(false);
    expect(expired(0, RETRY_WINDOW_MS)).toBe(true);
  });
});

describe("newLeadId", () => {
  it("is the date and 8 unambiguous characters, different every time", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    const ids = new Set(Array.from({ length: 1000 }, () => newLeadId(now)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^20261122-[0-9A-HJKMNP-TV-Z]{8}$/);
  });
});

import { describe, expect, it } from "vitest";
import { expired, leadKey, MAX_DELAY_MS, newLeadId, RETRY_WINDOW_MS, retryDelay } from "./schedule";

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
  it("is true once 7 days have passed since acceptance and 7 days of waits were scheduled", () => {
    expect(expired(0, RETRY_WINDOW_MS, RETRY_WINDOW_MS - 1)).toBe(false);
    expect(expired(0, RETRY_WINDOW_MS, RETRY_WINDOW_MS)).toBe(true);
  });

  it("a clock that jumps 8 days forward does not park a lead that has waited minutes", () => {
    expect(expired(0, 5 * 60_000, 8 * 24 * 3600_000)).toBe(false);
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

describe("leadKey", () => {
  const lead = { kind: "contact" as const, subject: "New contact form message from Ada", fromName: "Ada", replyTo: "ada@example.com", text: "Message: hello" };
  it("is the same for the same form posted again, and differs when anything the agency reads differs", () => {
    expect(leadKey({ ...lead })).toBe(leadKey(lead));
    expect(leadKey({ ...lead, text: "Message: hello!" })).not.toBe(leadKey(lead));
    expect(leadKey({ ...lead, replyTo: "bob@example.com" })).not.toBe(leadKey(lead));
    expect(leadKey({ ...lead, kind: "calculator" })).not.toBe(leadKey(lead));
  });
  it("is of what was typed, not of the visit's source: the same form posted again from another landing is the same lead", () => {
    expect(leadKey({ ...lead, source: { kind: "campaign", source: "newsletter" } })).toBe(leadKey(lead));
    expect(leadKey({ ...lead, source: { kind: "direct" } })).toBe(leadKey({ ...lead, source: { kind: "link" } }));
  });
});

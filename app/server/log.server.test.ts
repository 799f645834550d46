import { afterEach, describe, expect, it, vi } from "vitest";

import { formatLogLine, isRedactedField, log } from "./log.server";

const at = new Date("2026-01-02T03:04:05.678Z");

function parse(line: string): Record<string, unknown> {
  return JSON.parse(line) as Record<string, unknown>;
}

describe("formatLogLine", () => {
  it("writes time, level, event and the fields", () => {
    expect(parse(formatLogLine("delivery_ok", { provider: "web3forms", ms: 120 }, "info", at))).toEqual({
      time: "2026-01-02T03:04:05.678Z",
      level: "info",
      event: "delivery_ok",
      provider: "web3forms",
      ms: 120,
    });
  });

  it.each([
    "key",
    "accessKey",
    "access_key",
    "FORM_ACCESS_KEY",
    "secret",
    "clientSecret",
    "token",
    "csrfToken",
    "password",
    "message",
    "errorMessage",
    "body",
    "text",
    "description",
    "Authorization",
    "cookie",
  ])("drops a field named %s", (name) => {
    const line = formatLogLine("e", { [name]: "SENSITIVE", keep: 1 }, "info", at);
    expect(line).not.toContain("SENSITIVE");
    expect(parse(line)).toMatchObject({ keep: 1, redacted: [name] });
  });

  it.each(["provider", "status", "cause", "ms", "route", "ip", "retryAfterSeconds"])("keeps %s", (name) => {
    expect(isRedactedField(name)).toBe(false);
  });

  it("redacts nested fields and arrays of objects", () => {
    const line = formatLogLine(
      "e",
      { payload: { access_key: "K1", subject: "New enquiry", nested: [{ message: "hi there" }] } },
      "info",
      at,
    );
    expect(line).not.toContain("K1");
    expect(line).not.toContain("hi there");
    expect(parse(line)).toMatchObject({
      payload: { subject: "New enquiry", nested: [{}] },
      redacted: ["payload.access_key", "payload.nested[0].message"],
    });
  });

  it("reduces errors to name, code and cause, never the message", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443"), { code: "ECONNREFUSED" });
    const err = new TypeError("fetch failed https://api.example/submit?access_key=K2", { cause });
    const line = formatLogLine("delivery_failed", { error: err }, "warn", at);
    expect(line).not.toContain("K2");
    expect(line).not.toContain("10.0.0.1");
    expect(parse(line)).toMatchObject({
      level: "warn",
      error: { name: "TypeError", cause: { name: "Error", code: "ECONNREFUSED" } },
    });
  });

  it("cannot overwrite time, level or event", () => {
    expect(parse(formatLogLine("real", { event: "fake", level: "debug", time: "x" }, "error", at))).toMatchObject({
      event: "real",
      level: "error",
      time: "2026-01-02T03:04:05.678Z",
    });
  });

  it("survives cycles, bigints, non-finite numbers and long strings", () => {
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    const line = formatLogLine("e", { a, n: 10n, inf: Infinity, long: "x".repeat(2000), f: () => 1 }, "info", at);
    const rec = parse(line);
    expect(rec.a).toEqual({ name: "a", self: "[circular]" });
    expect(rec.n).toBe("10");
    expect(rec.inf).toBe("Infinity");
    expect((rec.long as string).length).toBeLessThan(600);
    expect("f" in rec).toBe(false);
  });

  it("drops query strings from URL values", () => {
    const rec = parse(formatLogLine("e", { endpoint: new URL("https://x.example/f/1?k=secret") }, "info", at));
    expect(rec.endpoint).toBe("https://x.example/f/1");
  });
});

describe("log", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes exactly one JSON line to stdout", () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    log("rate_limited", { limiter: "posts", body: "visitor text" }, "warn");
    expect(writes).toHaveLength(1);
    const line = writes[0] ?? "";
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    const rec = parse(line);
    expect(rec).toMatchObject({ level: "warn", event: "rate_limited", limiter: "posts", redacted: ["body"] });
    expect(Number.isNaN(Date.parse(rec.time as string))).toBe(false);
  });

  it("never throws, even if stdout does", () => {
    vi.spyOn(process.stdout, "write").mockImplementation(() => {
      throw new Error("EPIPE");
    });
    expect(() => log("e")).not.toThrow();
  });
});

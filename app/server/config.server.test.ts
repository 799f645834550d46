import { afterEach, describe, expect, it, vi } from "vitest";

import {
  assertConfigOrExit,
  describeConfig,
  getConfig,
  parseConfig,
  resetConfigForTests,
} from "./config.server";

const defaults = { formInbox: "hello@agency.example" };

function errorOf(env: Record<string, string | undefined>): string {
  try {
    parseConfig(env, defaults);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected parseConfig to throw");
}

describe("parseConfig", () => {
  it("applies every default on an empty environment", () => {
    expect(parseConfig({}, defaults)).toEqual({
      port: undefined,
      host: undefined,
      formProvider: "web3forms",
      formEndpoint: "https://api.web3forms.com/submit",
      formAccessKey: undefined,
      formInbox: "hello@agency.example",
      outboxFile: "data/outbox.jsonl",
      formTimeoutMs: 10000,
      trustProxy: false,
      redisUrl: undefined,
      siteUrl: undefined,
    });
  });

  it("reads every variable", () => {
    const cfg = parseConfig(
      {
        PORT: "8080",
        HOST: "0.0.0.0",
        FORM_PROVIDER: "formspree",
        FORM_ENDPOINT: "https://formspree.io/f/abc",
        FORM_ACCESS_KEY: "  k-123  ",
        FORM_INBOX: "sales@agency.example",
        OUTBOX_FILE: "/var/lib/site/outbox.jsonl",
        FORM_TIMEOUT_MS: "5000",
        TRUST_PROXY: "TRUE",
        REDIS_URL: "redis://:pw@redis:6379/0",
        SITE_URL: "https://www.agency.example/some/path",
      },
      defaults,
    );
    expect(cfg).toEqual({
      port: 8080,
      host: "0.0.0.0",
      formProvider: "formspree",
      formEndpoint: "https://formspree.io/f/abc",
      formAccessKey: "k-123",
      formInbox: "sales@agency.example",
      outboxFile: "/var/lib/site/outbox.jsonl",
      formTimeoutMs: 5000,
      trustProxy: true,
      redisUrl: "redis://:pw@redis:6379/0",
      siteUrl: "https://www.agency.example",
    });
  });

  it("treats blank values as unset", () => {
    const cfg = parseConfig({ FORM_ACCESS_KEY: "   ", PORT: "", TRUST_PROXY: " " }, defaults);
    expect(cfg.formAccessKey).toBeUndefined();
    expect(cfg.port).toBeUndefined();
    expect(cfg.trustProxy).toBe(false);
  });

  it.each([
    ["1", true],
    ["true", true],
    ["0", false],
    ["false", false],
    ["False", false],
  ])("TRUST_PROXY=%s is %s", (raw, expected) => {
    expect(parseConfig({ TRUST_PROXY: raw }, defaults).trustProxy).toBe(expected);
  });

  it.each([
    [{ FORM_ENDPOINT: "ftp://x.example/submit" }, "Invalid configuration: FORM_ENDPOINT must be an http(s) URL"],
    [{ FORM_ENDPOINT: "not a url" }, "Invalid configuration: FORM_ENDPOINT must be an http(s) URL"],
    [{ FORM_PROVIDER: "mailgun" }, "Invalid configuration: FORM_PROVIDER must be one of web3forms, formspree, webhook"],
    [{ FORM_PROVIDER: "webhook" }, "Invalid configuration: FORM_ENDPOINT must be set when FORM_PROVIDER is webhook"],
    [{ FORM_INBOX: "nobody" }, "Invalid configuration: FORM_INBOX must be an email address"],
    [{ FORM_TIMEOUT_MS: "999" }, "Invalid configuration: FORM_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 30000"],
    [{ FORM_TIMEOUT_MS: "30001" }, "Invalid configuration: FORM_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 30000"],
    [{ FORM_TIMEOUT_MS: "10s" }, "Invalid configuration: FORM_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 30000"],
    [{ TRUST_PROXY: "yes" }, "Invalid configuration: TRUST_PROXY must be one of 1, true, 0, false"],
    [{ REDIS_URL: "http://redis:6379" }, "Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL"],
    [{ SITE_URL: "agency.example" }, "Invalid configuration: SITE_URL must be an http(s) URL (the canonical origin, e.g. https://example.com)"],
    [{ PORT: "70000" }, "Invalid configuration: PORT must be a whole number from 1 to 65535"],
    [{ PORT: "abc" }, "Invalid configuration: PORT must be a whole number from 1 to 65535"],
  ])("rejects %o with one clear line", (env, message) => {
    const got = errorOf(env);
    expect(got).toBe(message);
    expect(got).not.toContain("\n");
  });

  it("reports several problems on one line", () => {
    const got = errorOf({ FORM_ENDPOINT: "nope", TRUST_PROXY: "maybe" });
    expect(got).toBe(
      "Invalid configuration: FORM_ENDPOINT must be an http(s) URL; TRUST_PROXY must be one of 1, true, 0, false",
    );
  });

  it("never echoes a value in the message", () => {
    const got = errorOf({ REDIS_URL: "mysql://user:supersecret@db" });
    expect(got).not.toContain("supersecret");
  });

  it("rejects a bad default inbox from the caller", () => {
    expect(() => parseConfig({}, { formInbox: "not-an-email" })).toThrow(/FORM_INBOX/);
  });
});

describe("getConfig / assertConfigOrExit", () => {
  afterEach(() => {
    resetConfigForTests();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("memoizes process.env", () => {
    vi.stubEnv("FORM_TIMEOUT_MS", "2000");
    const first = getConfig(defaults);
    vi.stubEnv("FORM_TIMEOUT_MS", "3000");
    expect(getConfig(defaults)).toBe(first);
    expect(first.formTimeoutMs).toBe(2000);
  });

  it("prints one line to stderr and exits 1 on a bad environment", () => {
    vi.stubEnv("FORM_ENDPOINT", "javascript:alert(1)");
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as typeof process.exit);

    expect(() => assertConfigOrExit(defaults)).toThrow("exit 1");
    expect(exit).toHaveBeenCalledWith(1);
    expect(written).toHaveLength(1);
    const line = written[0] ?? "";
    expect(line.endsWith("\n")).toBe(true);
    expect(line.trimEnd()).not.toContain("\n");
    expect(JSON.parse(line)).toMatchObject({
      level: "error",
      event: "config_invalid",
      error: "Invalid configuration: FORM_ENDPOINT must be an http(s) URL",
    });
  });

  it("returns the config when the environment is fine", () => {
    vi.stubEnv("FORM_ENDPOINT", "http://127.0.0.1:9999/submit");
    expect(assertConfigOrExit(defaults).formEndpoint).toBe("http://127.0.0.1:9999/submit");
  });
});

describe("describeConfig", () => {
  it("hides the key and redis credentials", () => {
    const cfg = parseConfig(
      { FORM_ACCESS_KEY: "sekrit", REDIS_URL: "rediss://user:pw@cache.example:6380" },
      defaults,
    );
    const text = JSON.stringify(describeConfig(cfg));
    expect(text).not.toContain("sekrit");
    expect(text).not.toContain("pw");
    expect(describeConfig(cfg)).toMatchObject({
      formDelivery: "provider",
      rateLimitStore: "redis rediss://cache.example:6380",
    });
  });
});

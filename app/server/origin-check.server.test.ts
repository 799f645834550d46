import { describe, expect, it } from "vitest";

import { isCrossSite, ownOrigins } from "./origin-check.server";

const SITE = "http://agency.example";

function post(headers: Record<string, string>, url = `${SITE}/`): Request {
  return new Request(url, { method: "POST", headers });
}

const direct = { trustProxy: false };
const proxied = { trustProxy: true };

describe("isCrossSite: Sec-Fetch-Site decides when present", () => {
  it.each([
    ["same-origin", false],
    ["none", false],
    ["Same-Origin", false],
    ["same-site", true],
    ["cross-site", true],
    ["something-new", true],
    ["", true],
  ])("Sec-Fetch-Site: %j → cross-site %s", (value, refused) => {
    expect(isCrossSite(post({ "Sec-Fetch-Site": value }), direct)).toBe(refused);
  });

  it("wins over a matching Origin", () => {
    expect(isCrossSite(post({ "Sec-Fetch-Site": "cross-site", Origin: SITE }), direct)).toBe(true);
  });

  it("wins over a foreign Origin", () => {
    expect(isCrossSite(post({ "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" }), direct)).toBe(false);
  });
});

describe("isCrossSite: Origin / Referer when Sec-Fetch-Site is absent", () => {
  it.each([
    [{ Origin: SITE }, false],
    [{ Origin: "HTTP://AGENCY.EXAMPLE" }, false],
    [{ Origin: "http://agency.example:80" }, false],
    [{ Origin: "https://agency.example" }, true], // scheme differs
    [{ Origin: "http://agency.example:8080" }, true], // port differs
    [{ Origin: "http://www.agency.example" }, true], // sibling host
    [{ Origin: "http://agency.example.evil.example" }, true],
    [{ Origin: "https://evil.example" }, true],
    [{ Origin: "null" }, true],
    [{ Origin: "NULL" }, true],
    [{ Origin: "not a url" }, true],
    [{ Origin: "file:///etc/passwd" }, true],
    [{ Referer: `${SITE}/services?x=1` }, false],
    [{ Referer: "https://evil.example/agency.example" }, true],
    [{ Referer: "garbage" }, true],
    [{ Origin: SITE, Referer: "https://evil.example/" }, false], // Origin wins
    [{ Origin: "https://evil.example", Referer: `${SITE}/` }, true], // Origin wins
    [{}, false], // no browser headers at all: curl, monitors
  ])("%o → cross-site %s", (headers, refused) => {
    expect(isCrossSite(post(headers as Record<string, string>), direct)).toBe(refused);
  });
});

describe("isCrossSite behind a proxy", () => {
  const internal = "http://10.0.0.5:3000/";
  const fwd = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "agency.example" };

  it("refuses the public origin when the proxy is not trusted", () => {
    expect(isCrossSite(post({ ...fwd, Origin: "https://agency.example" }, internal), direct)).toBe(true);
  });

  it("accepts the origin rebuilt from X-Forwarded-* when trusted", () => {
    expect(isCrossSite(post({ ...fwd, Origin: "https://agency.example" }, internal), proxied)).toBe(false);
    expect(isCrossSite(post({ ...fwd, Referer: "https://agency.example/about" }, internal), proxied)).toBe(false);
    expect(isCrossSite(post({ ...fwd, Origin: "https://evil.example" }, internal), proxied)).toBe(true);
  });

  it("uses only the proto header when no host is forwarded", () => {
    const req = post({ "X-Forwarded-Proto": "https", Origin: "https://agency.example" }, "http://agency.example/");
    expect(isCrossSite(req, proxied)).toBe(false);
  });

  it("reads the outermost value of a forwarded chain", () => {
    const req = post(
      {
        "X-Forwarded-Proto": "https, http",
        "X-Forwarded-Host": "agency.example, lb.internal",
        Origin: "https://agency.example",
      },
      internal,
    );
    expect(isCrossSite(req, proxied)).toBe(false);
  });

  it("ignores a forwarded host that smuggles a path or credentials", () => {
    const origins = ownOrigins(
      post({ "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example/x@agency.example" }, internal),
      proxied,
    );
    expect([...origins]).toEqual(["http://10.0.0.5:3000"]);
  });

  it("accepts allowedOrigins (SITE_URL) even without a trusted proxy", () => {
    const opts = { trustProxy: false, allowedOrigins: ["https://agency.example/", undefined] };
    expect(isCrossSite(post({ Origin: "https://agency.example" }, internal), opts)).toBe(false);
    expect(isCrossSite(post({ Origin: "https://evil.example" }, internal), opts)).toBe(true);
  });
});

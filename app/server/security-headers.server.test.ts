import { describe, expect, it } from "vitest";

import {
  applySecurityHeaders,
  contentSecurityPolicy,
  createNonce,
  isHttps,
  securityHeaders,
} from "./security-headers.server";

describe("createNonce", () => {
  it("is 16 random bytes in base64, different every time", () => {
    const nonces = new Set(Array.from({ length: 100 }, () => createNonce()));
    expect(nonces.size).toBe(100);
    for (const n of nonces) {
      expect(n).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(Buffer.from(n, "base64")).toHaveLength(16);
    }
  });

  it("stays unique across refills of its random pool", () => {
    const nonces = Array.from({ length: 1000 }, () => createNonce());
    expect(new Set(nonces).size).toBe(1000);
    for (const n of nonces) expect(Buffer.from(n, "base64")).toHaveLength(16);
  });
});

describe("securityHeaders", () => {
  it("builds the exact CSP with the nonce", () => {
    expect(securityHeaders({ nonce: "abc+/=", https: false })["Content-Security-Policy"]).toBe(
      "default-src 'self'; script-src 'self' 'nonce-abc+/='; style-src 'self'; img-src 'self' data:; " +
        "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; " +
        "object-src 'none'",
    );
  });

  it("sets the fixed headers", () => {
    const h = securityHeaders({ nonce: createNonce(), https: false });
    expect(h["X-Content-Type-Options"]).toBe("nosniff");
    expect(h["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
    expect(h["Cross-Origin-Opener-Policy"]).toBe("same-origin");
    expect(h["X-Frame-Options"]).toBe("DENY");
    const pp = h["Permissions-Policy"] ?? "";
    for (const feature of ["camera", "microphone", "geolocation", "payment", "usb", "interest-cohort", "browsing-topics"]) {
      expect(pp).toContain(`${feature}=()`);
    }
    // Structured-field list syntax: a parse error would make Chrome drop the whole header.
    expect(pp).toMatch(/^[a-z-]+=\(\)(, [a-z-]+=\(\))*$/);
  });

  it("adds HSTS only over HTTPS", () => {
    expect(securityHeaders({ nonce: "n", https: false })).not.toHaveProperty("Strict-Transport-Security");
    expect(securityHeaders({ nonce: "n", https: true })["Strict-Transport-Security"]).toBe(
      "max-age=63072000; includeSubDomains",
    );
  });

  it.each(["a'b", "a;b", "a b", ""])("refuses a nonce that could break the policy: %j", (nonce) => {
    expect(() => contentSecurityPolicy(nonce)).toThrow();
  });
});

describe("applySecurityHeaders", () => {
  it("sets every header on a Headers object, overwriting earlier values", () => {
    const headers = new Headers({ "Content-Type": "text/html", "X-Frame-Options": "SAMEORIGIN" });
    const nonce = createNonce();
    const out = applySecurityHeaders(headers, { nonce, https: true });
    expect(out).toBe(headers);
    expect(headers.get("content-type")).toBe("text/html");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("content-security-policy")).toContain(`'nonce-${nonce}'`);
    expect(headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
  });
});

describe("isHttps", () => {
  const req = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

  it("uses the URL scheme", () => {
    expect(isHttps(req("https://a.example/"), false)).toBe(true);
    expect(isHttps(req("http://a.example/"), false)).toBe(false);
  });

  it("ignores X-Forwarded-Proto unless the proxy is trusted", () => {
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "https" }), false)).toBe(false);
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "https" }), true)).toBe(true);
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "HTTPS" }), true)).toBe(true);
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "http" }), true)).toBe(false);
    expect(isHttps(req("http://a.example/"), true)).toBe(false);
  });

  it("reads the outermost value of a chain", () => {
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "https, http" }), true)).toBe(true);
    expect(isHttps(req("http://a.example/", { "X-Forwarded-Proto": "http, https" }), true)).toBe(false);
  });

  it("an https URL stays https whatever the header says", () => {
    expect(isHttps(req("https://a.example/", { "X-Forwarded-Proto": "http" }), true)).toBe(true);
  });
});

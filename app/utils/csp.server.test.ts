import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, inlineScriptHashes } from "./csp.server";

const sha = (text: string) => `sha256-${createHash("sha256").update(text).digest("base64")}`;

describe("inlineScriptHashes", () => {
  it("hashes the text of every inline script the browser would run, once each, in order", () => {
    const html = [
      '<script>window.__remixContext = {"a":1};</script>',
      '<script type="module" async="">import "/build/manifest-1.js";</script>',
      '<script>window.__remixContext = {"a":1};</script>',
      '<script src="/build/x.js"></script>',
      '<script type="application/ld+json">{"@type":"Organization"}</script>',
      "<SCRIPT>é\r\n</SCRIPT>",
    ].join("<p>x</p>");
    expect(inlineScriptHashes(html)).toEqual([sha('window.__remixContext = {"a":1};'), sha('import "/build/manifest-1.js";'), sha("é\n")]);
  });

  it("finds none in a page without inline scripts", () => expect(inlineScriptHashes("<p>no scripts</p>")).toEqual([]));
});

// The policy every answer carries (its directives, a document's scripts by their hashes, nothing
// unsafe, no nonce) is tests/ops/server.spec.ts's, on the real server.
describe("contentSecurityPolicy", () => {
  it("lets no inline script run where none is listed, and adds the live-reload socket in development only", () => {
    expect(contentSecurityPolicy()).toContain("script-src 'self';");
    expect(contentSecurityPolicy()).toContain("connect-src 'self';");
    expect(contentSecurityPolicy([], { dev: true })).toContain("connect-src 'self' ws:");
  });
});

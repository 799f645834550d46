import { describe, expect, it } from "vitest";
import { documentCacheKey, HtmlCache, NONCE_PLACEHOLDER } from "./html-cache.server";

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));
const page = `<html><script nonce="${NONCE_PLACEHOLDER}">a</script><p>café</p><script nonce="${NONCE_PLACEHOLDER}" type="module"></script></html>`;

describe("HtmlCache", () => {
  it("puts each response's own nonce wherever the placeholder was", () => {
    const cache = new HtmlCache({ maxEntries: 10, ttlMs: 1000 });
    expect(text(cache.set("k", page, "first"))).toBe(page.replaceAll(NONCE_PLACEHOLDER, "first"));
    expect(text(cache.get("k", "second"))).toBe(page.replaceAll(NONCE_PLACEHOLDER, "second"));
    expect(text(cache.get("k", "third"))).not.toContain("second");
  });

  it("forgets entries after ttlMs", () => {
    let now = 0;
    const cache = new HtmlCache({ maxEntries: 10, ttlMs: 1000, now: () => now });
    cache.set("k", page, "n");
    now = 999;
    expect(cache.get("k", "n")).toBeDefined();
    now = 1000;
    expect(cache.get("k", "n")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps at most maxEntries, dropping the least recently used", () => {
    const cache = new HtmlCache({ maxEntries: 2, ttlMs: 1000 });
    cache.set("a", "A", "n");
    cache.set("b", "B", "n");
    cache.get("a", "n");
    cache.set("c", "C", "n");
    expect(cache.size).toBe(2);
    expect(cache.get("b", "n")).toBeUndefined();
    expect(text(cache.get("a", "n"))).toBe("A");
    expect(text(cache.get("c", "n"))).toBe("C");
  });

  it("uses a placeholder no page can contain by chance", () => {
    expect(NONCE_PLACEHOLDER).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });
});

describe("documentCacheKey", () => {
  const context = (hasLoader = false) => ({
    manifest: { routes: { root: { hasLoader: false }, "routes/_index": { hasLoader } } },
    staticHandlerContext: { matches: [{ route: { id: "root" } }, { route: { id: "routes/_index" } }] },
  });
  // The real types are wide; these tests only need the fields documentCacheKey reads.
  const key = (url: string, init: RequestInit = {}, status = 200, hasLoader = false) =>
    documentCacheKey(new Request(url, init), status, context(hasLoader) as unknown as Parameters<typeof documentCacheKey>[2]);

  it("is the full URL for a page that is the same for everyone", () => {
    expect(key("http://a.example/")).toBe("http://a.example/");
    expect(key("http://a.example/?service=seo")).toBe("http://a.example/?service=seo");
    expect(key("http://a.example/work?category=ai")).toBe("http://a.example/work?category=ai");
    expect(key("http://a.example/", { method: "HEAD" })).toBe("http://a.example/");
  });

  it("is null for posts, other statuses, routes with loaders and unknown query parameters", () => {
    expect(key("http://a.example/", { method: "POST", body: "a=1" })).toBeNull();
    expect(key("http://a.example/missing", {}, 404)).toBeNull();
    expect(key("http://a.example/", {}, 500)).toBeNull();
    expect(key("http://a.example/", {}, 200, true)).toBeNull();
    expect(key("http://a.example/?sent=contact")).toBeNull();
    expect(key("http://a.example/?service=seo&sent=calculator")).toBeNull();
    expect(key("http://a.example/?utm_source=mail")).toBeNull();
  });
});

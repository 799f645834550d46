import { describe, expect, it } from "vitest";
import { createPageCache } from "./page-cache";

const PUBLIC = "public, max-age=0, s-maxage=300, stale-while-revalidate=86400";
const page = (headers: Record<string, string> = {}, status = 200) => ({
  status,
  headers: new Headers({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": PUBLIC, ...headers }),
  pieces: ['<script nonce="', '">a</script><p>café</p><script nonce="', '"></script>'],
});

describe("createPageCache", () => {
  it("answers each request with its own nonce wherever the page had one", () => {
    const cache = createPageCache();
    cache.put("/", page());
    expect(cache.get("/", "first")?.body.toString()).toBe('<script nonce="first">a</script><p>café</p><script nonce="first"></script>');
    expect(cache.get("/", "second")?.body.toString()).not.toContain("first");
    expect(cache.get("/", "x")?.headers).toContainEqual(["cache-control", PUBLIC]);
  });

  it("keeps only what a shared cache may keep: a public 200 HTML page with s-maxage and no cookie", () => {
    const cache = createPageCache();
    cache.put("/a", page({ "Cache-Control": "private, no-store" }));
    cache.put("/b", page({}, 404));
    cache.put("/c", page({ "Set-Cookie": "a=1" }));
    cache.put("/d", page({ "Cache-Control": "public, max-age=60" }));
    cache.put("/e", page({ "Content-Type": "application/json" }));
    expect(cache.size).toBe(0);
  });

  it("forgets a page after its s-maxage and keeps at most maxEntries, least recently used first out", () => {
    let now = 0;
    const cache = createPageCache({ maxEntries: 2, now: () => now });
    cache.put("/a", page());
    cache.put("/b", page());
    cache.get("/a", "n");
    cache.put("/c", page());
    expect([cache.get("/a", "n"), cache.get("/b", "n"), cache.get("/c", "n")].map(Boolean)).toEqual([true, false, true]);
    now = 300_000;
    expect(cache.get("/a", "n")).toBeUndefined();
  });

  it("takes GET and HEAD with no query or only the parameters that select what a page shows", () => {
    const cache = createPageCache();
    expect(cache.keyFor("GET", "/")).toBe("/");
    expect(cache.keyFor("HEAD", "/work?category=ai")).toBe("/work?category=ai");
    expect(cache.keyFor("GET", "/?service=seo")).toBe("/?service=seo");
    for (const url of ["/?sent=contact", "/?service=seo&sent=calculator", "/work?_data=routes%2Fwork", "/?utm_source=mail"]) expect(cache.keyFor("GET", url)).toBeNull();
    expect(cache.keyFor("POST", "/")).toBeNull();
  });
});

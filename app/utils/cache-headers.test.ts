import type { HeadersFunction } from "@remix-run/node";
import CachePolicy from "http-cache-semantics";
import { describe, expect, it } from "vitest";

import { cacheHeaders, enforceDocumentCachePolicy, pageHeaders } from "./cache-headers";

const none = () => new Headers();

/** How a cache of this kind (shared: a CDN or the server's page cache; else a browser) reads a 200 with this Cache-Control. */
function policy(cacheControl: string, shared: boolean) {
  const response = { status: 200, headers: { "cache-control": cacheControl } };
  return new CachePolicy({ url: "/", method: "GET", headers: {} }, response, { shared });
}

describe("cacheHeaders", () => {
  it("a page may be kept and served fresh for a while by a shared cache, and longer stale while it refreshes", () => {
    const shared = policy(cacheHeaders.page, true);
    expect(shared.storable()).toBe(true);
    expect(shared.maxAge()).toBeGreaterThan(0);
    expect(shared.stale()).toBe(false);
    // Kept past its freshness: stale-while-revalidate.
    expect(shared.timeToLive()).toBeGreaterThan(shared.maxAge() * 1000);
  });

  it("a browser keeps a page but asks again before showing it (a deploy reaches visitors at once)", () => {
    const browser = policy(cacheHeaders.page, false);
    expect(browser.storable()).toBe(true);
    expect(browser.maxAge()).toBe(0);
    expect(browser.stale()).toBe(true);
  });

  it("a per-visitor answer is kept by no cache at all", () => {
    for (const shared of [true, false]) expect(policy(cacheHeaders.private, shared).storable()).toBe(false);
  });
});

describe("pageHeaders", () => {
  it("fits Remix's HeadersFunction type", () => {
    const headers: HeadersFunction = pageHeaders;
    expect(typeof headers).toBe("function");
  });

  it("is public for a plain GET", () => {
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders: none(), parentHeaders: none() })).toEqual({
      "Cache-Control": cacheHeaders.page,
    });
  });

  it("is private when the route's action ran (json() data always carries a Content-Type)", () => {
    const actionHeaders = new Headers({ "Content-Type": "application/json; charset=utf-8" });
    expect(pageHeaders({ actionHeaders, loaderHeaders: none() })["Cache-Control"]).toBe(cacheHeaders.private);
  });

  it("is private when an error boundary renders", () => {
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders: none(), errorHeaders: new Headers() })["Cache-Control"]).toBe(cacheHeaders.private);
  });

  it.each(["private, no-store", "no-store", "private", "public, NO-STORE"])("stays private under a parent that said %j", (value) => {
    const parentHeaders = new Headers({ "Cache-Control": value });
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders: none(), parentHeaders })["Cache-Control"]).toBe(cacheHeaders.private);
  });

  it("does not mistake a public parent for private", () => {
    const parentHeaders = new Headers({ "Cache-Control": cacheHeaders.page });
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders: none(), parentHeaders })["Cache-Control"]).toBe(cacheHeaders.page);
  });

  it("keeps a loader's explicit Cache-Control on a GET, but not on a post", () => {
    const loaderHeaders = new Headers({ "Cache-Control": "public, max-age=3600" });
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders })["Cache-Control"]).toBe("public, max-age=3600");
    const actionHeaders = new Headers({ "Content-Type": "application/json" });
    expect(pageHeaders({ actionHeaders, loaderHeaders })["Cache-Control"]).toBe(cacheHeaders.private);
  });
});

describe("enforceDocumentCachePolicy", () => {
  const publicHeaders = () => new Headers({ "Cache-Control": cacheHeaders.page });

  it.each([
    ["GET", 200, cacheHeaders.page],
    ["HEAD", 200, cacheHeaders.page],
    ["GET", 404, cacheHeaders.private],
    ["GET", 500, cacheHeaders.private],
    ["GET", 400, cacheHeaders.private],
    ["POST", 200, cacheHeaders.private],
    ["POST", 400, cacheHeaders.private],
  ])("%s answered %i → %s", (method, status, expected) => {
    const headers = publicHeaders();
    const out = enforceDocumentCachePolicy(new Request("http://a.example/", { method }), status, headers);
    expect(out).toBe(headers);
    expect(headers.get("cache-control")).toBe(expected);
  });

  it.each([
    ["http://a.example/?sent=contact", cacheHeaders.private],
    ["http://a.example/?service=seo&sent=calculator", cacheHeaders.private],
    ["http://a.example/?sent=", cacheHeaders.private],
    ["http://a.example/?service=seo", cacheHeaders.page],
    ["http://a.example/work?category=ai", cacheHeaders.page],
    ["http://a.example/?utm_source=mail", cacheHeaders.page],
  ])("GET %s answered 200 → %s", (url, expected) => {
    const headers = publicHeaders();
    enforceDocumentCachePolicy(new Request(url), 200, headers);
    expect(headers.get("cache-control")).toBe(expected);
  });

  it("leaves a successful GET without Cache-Control alone", () => {
    const headers = new Headers();
    enforceDocumentCachePolicy(new Request("http://a.example/"), 200, headers);
    expect(headers.has("cache-control")).toBe(false);
  });
});

describe("pageHeaders and Retry-After", () => {
  it("passes an action's Retry-After on to the page it answers with", () => {
    const actionHeaders = new Headers({ "Content-Type": "application/json", "Retry-After": "42" });
    expect(pageHeaders({ actionHeaders, loaderHeaders: none() })).toEqual({ "Cache-Control": cacheHeaders.private, "Retry-After": "42" });
  });
});

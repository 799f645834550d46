import type { HeadersFunction } from "@remix-run/node";
import CachePolicy from "http-cache-semantics";
import { describe, expect, it } from "vitest";

import { cacheHeaders, enforceDocumentCachePolicy, pageHeaders, type PageHeadersArgs } from "./cache-headers";

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

/** It fits Remix's HeadersFunction type (tsc checks this line). */
const _fits: HeadersFunction = pageHeaders;

describe("pageHeaders", () => {
  const json = () => new Headers({ "Content-Type": "application/json; charset=utf-8" }); // action data always carries one
  const cc = (value: string) => new Headers({ "Cache-Control": value });
  it.each([
    ["public for a plain GET", {}, { "Cache-Control": cacheHeaders.page }],
    ["private when the route's action ran", { actionHeaders: json() }, { "Cache-Control": cacheHeaders.private }],
    ["private when an error boundary renders", { errorHeaders: new Headers() }, { "Cache-Control": cacheHeaders.private }],
    ...["private, no-store", "no-store", "private", "public, NO-STORE"].map(
      (v) => [`private under a parent that said ${v}`, { parentHeaders: cc(v) }, { "Cache-Control": cacheHeaders.private }] as const,
    ),
    ["public under a public parent", { parentHeaders: cc(cacheHeaders.page) }, { "Cache-Control": cacheHeaders.page }],
    ["a loader's own Cache-Control on a GET", { loaderHeaders: cc("public, max-age=3600") }, { "Cache-Control": "public, max-age=3600" }],
    [
      "private on a post, whatever the loader said",
      { actionHeaders: json(), loaderHeaders: cc("public, max-age=3600") },
      { "Cache-Control": cacheHeaders.private },
    ],
    [
      "an action's Retry-After passed on",
      { actionHeaders: new Headers({ "Content-Type": "application/json", "Retry-After": "42" }) },
      { "Cache-Control": cacheHeaders.private, "Retry-After": "42" },
    ],
  ] as const)("%s", (_what, args: Partial<PageHeadersArgs>, expected) => {
    expect(pageHeaders({ actionHeaders: none(), loaderHeaders: none(), ...args })).toEqual(expected);
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

import type { HeadersFunction } from "@remix-run/node";
import { describe, expect, it } from "vitest";

import { cacheHeaders, enforceDocumentCachePolicy, pageHeaders, type PageHeadersArgs } from "./cache-headers";

const none = () => new Headers();

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

// How a shared cache (Varnish) reads the page and private answers, and that each per-visitor address
// (?sent=, with other parameters or empty) is private, is tests/caching.spec.ts's, on the real server.
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

  it("leaves a successful GET without Cache-Control alone", () => {
    const headers = new Headers();
    enforceDocumentCachePolicy(new Request("http://a.example/"), 200, headers);
    expect(headers.has("cache-control")).toBe(false);
  });
});

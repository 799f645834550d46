import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { projectCategories } from "~/content/projects";
import { services } from "~/content/services";
import { PRIVATE_QUERY_PARAMS } from "~/utils/cache-headers";
import { pageVariants } from "~/page-variants.server";
import { createPageCache, sharedTtl, type PageCacheOptions } from "./page-cache";

const PUBLIC = "public, max-age=0, s-maxage=300, stale-while-revalidate=86400";
const HTML = `<!DOCTYPE html><html><body>${"<p>Custom software, SEO and AI for South African businesses.</p>".repeat(80)}</body></html>`;
const page = (headers: Record<string, string> = {}, status = 200, body = HTML) =>
  new Response(body, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": PUBLIC, "Content-Security-Policy": "script-src 'self' 'sha256-x'", ...headers },
  });

function cacheWith(render: PageCacheOptions["render"] = async () => page(), extra: Partial<PageCacheOptions> = {}) {
  return createPageCache({
    pagePaths: ["/", "/services", "/about", "/work"],
    variants: pageVariants,
    privateParams: PRIVATE_QUERY_PARAMS,
    commonHeaders: [["X-Content-Type-Options", "nosniff"]],
    render,
    ...extra,
  });
}

describe("route: what a request's key is", () => {
  const cache = cacheWith();
  it.each([
    ["/", "/"],
    ["/about", "/about"],
    ["/?utm_source=mail&utm_campaign=x&gclid=abc&fbclid=def&anything=1", "/"],
    ["/?index", "/"],
    ["/?service=seo", "/?service=seo"],
    ["/?service=s%65o&utm_source=mail", "/?service=seo"],
    ["/?service=rocket-science", "/"],
    ["/?service=SEO", "/"],
    ["/?service=", "/"],
    ["/?service=seo&service=ai", "/?service=seo"],
    ["/about?service=seo", "/about"],
    ["/work?category=ai&gclid=1", "/work?category=ai"],
    ["/work?category=%3Cscript%3E", "/work"],
  ])("%s → %s", (url, key) => {
    expect(cache.route("GET", url)).toEqual({ key });
    expect(cache.route("HEAD", url)).toEqual({ key });
  });

  it("has a key of its own for every service tab and every work category, from the content", () => {
    for (const { key } of services) expect(cache.route("GET", `/?service=${key}&utm_source=x`)).toEqual({ key: `/?service=${key}` });
    for (const { value } of projectCategories) expect(cache.route("GET", `/work?category=${value}`)).toEqual({ key: `/work?category=${value}` });
  });

  it("keys an estimate's page on its three choices alone, in one order, whatever else the address holds", () => {
    const estimates = cacheWith(undefined, { pagePaths: ["/estimate"] });
    const key = "/estimate?complexity=simple&service=seo&timeframe=urgent";
    expect(estimates.route("GET", "/estimate?service=seo&timeframe=urgent&complexity=simple")).toEqual({ key });
    expect(estimates.route("GET", "/estimate?complexity=simple&utm_source=chat&timeframe=urgent&service=seo&name=Ada")).toEqual({ key });
    // A value not among the choices is left out: that key's page is a 404, which is never kept.
    expect(estimates.route("GET", "/estimate?service=seo&timeframe=soon&complexity=simple")).toEqual({ key: "/estimate?complexity=simple&service=seo" });
  });

  it.each("/?sent=contact /?service=seo&sent=calculator /?sent= /work?_data=routes%2Fwork /no-such-page /build/x.js http://elsewhere.example/".split(" "))(
    "%s is not the cache's to answer",
    (url) => expect(cache.route("GET", url)).toBeNull(),
  );

  it("leaves every per-visitor parameter in PRIVATE_QUERY_PARAMS to Remix", () => {
    for (const name of PRIVATE_QUERY_PARAMS) expect(cache.route("GET", `/?${name}=1`)).toBeNull();
    const withDraft = cacheWith(undefined, { privateParams: [...PRIVATE_QUERY_PARAMS, "draft"] });
    expect(withDraft.route("GET", "/?draft=abc&service=seo")).toBeNull();
  });

  it("takes GET and HEAD only", () => expect(cache.route("POST", "/")).toBeNull());

  // A page path in odd case is oneAddress's to redirect (canonical-path.test.ts).
  it("leaves a page path in odd case alone", () => expect(cache.route("GET", "/SeRvIcEs")).toBeNull());
});

describe("lookup: rendering and keeping", () => {
  it("renders a key once however many ask at the same time, keeps it, and answers it at once (no promise) from then on", async () => {
    let renders = 0;
    const cache = cacheWith(async () => (renders++, page()));
    const miss = cache.lookup("/");
    expect(miss).toBeInstanceOf(Promise);
    const all = await Promise.all([miss, ...Array.from({ length: 4 }, () => cache.lookup("/"))]);
    expect([renders, new Set(all).size]).toEqual([1, 1]);
    expect(all[0]).toBeDefined();
    expect(cache.lookup("/")).toBe(all[0]);
    expect(sharedTtl("/", page())).toBe(300);
  });

  it.each([
    ["private", page({ "Cache-Control": "private, no-store" })],
    ["no-store", page({ "Cache-Control": "no-store" })],
    ["a 404", page({}, 404)],
    ["a cookie", page({ "Set-Cookie": "a=1" })],
    ["max-age=0 for everyone", page({ "Cache-Control": "public, max-age=0" })],
  ])("keeps nothing a shared cache may not keep: %s", async (_what, response) => {
    expect(sharedTtl("/", response)).toBe(0);
    const cache = cacheWith(async () => response.clone());
    expect(await cache.lookup("/")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("renders a key whose answer was not kept only once a minute: the requests between go straight to Remix", async () => {
    let renders = 0;
    const cache = cacheWith(async () => (renders++, page({}, 404)));
    expect(await cache.lookup("/estimate")).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(cache.lookup("/estimate")).toBeUndefined();
    expect(renders).toBe(1);
  });

  it("keeps identity, brotli-11 and gzip-9 bodies of the same bytes, each with its own strong ETag", async () => {
    const kept = (await cacheWith().lookup("/"))!;
    expect(kept.bodies.identity.toString()).toBe(HTML);
    expect(brotliDecompressSync(kept.bodies.br).toString()).toBe(HTML);
    expect(gunzipSync(kept.bodies.gzip).toString()).toBe(HTML);
    const best = brotliCompressSync(Buffer.from(HTML), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    expect(kept.bodies.br.length).toBeLessThanOrEqual(best.length);
    expect(kept.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const etags = Object.values(kept.headers).map((list) => list[list.indexOf("etag") + 1]);
    expect(new Set(etags).size).toBe(3);
  });

  it("serves a page past its s-maxage while it renders it again", async ({ onTestFinished }) => {
    // The kept pages' clock is lru-cache's, performance.now: moved past the page's age at once.
    const realNow = performance.now.bind(performance);
    let ahead = 0;
    vi.spyOn(performance, "now").mockImplementation(() => realNow() + ahead);
    onTestFinished(() => void vi.restoreAllMocks());
    let renders = 0;
    const cache = cacheWith(async () => (renders++, page({ "Cache-Control": "public, s-maxage=1" })));
    const first = await cache.lookup("/");
    ahead += 1100;
    expect(cache.lookup("/")).toBe(first);
    await expect.poll(() => renders).toBe(2);
    await expect.poll(() => cache.lookup("/") !== first).toBe(true);
  });
});

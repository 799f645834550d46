/**
 * Caching end to end, over HTTP (once): public pages with a strong ETag and the same bytes for
 * every visitor (their CSP allows each inline script by its hash, no nonce), per-visitor answers
 * private, build files immutable and precompressed, 304s and HEAD, campaign parameters that change
 * nothing, and the same through a real caching proxy (Varnish) with a browser behind it.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { messages } from "../app/content/messages";
import { scriptHashes, walkTheSite, watchCsp } from "./support/csp";
import { expect, test } from "./support/fixtures";
import { sites } from "./support/sites";
import { startVarnish, type Varnish } from "./support/varnish";

const PUBLIC_PAGE = /^public, max-age=0, s-maxage=\d+, stale-while-revalidate=\d+$/;
const PRIVATE = "private, no-store";
const PAGES = ["/", "/services", "/about", "/work"];

/** One request as a client sends it, the body as it crossed the wire (not decoded). */
function raw(url: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

/** The page's CSP allows exactly its inline scripts, and nothing carries a nonce. */
function expectHashedScripts(csp: string | undefined, html: string, what: string) {
  expect(csp, what).toBeTruthy();
  expect(`${csp}\n${html}`, what).not.toMatch(/nonce/i);
  const { scriptSrc, allowed, inline } = scriptHashes(csp!, html);
  expect(scriptSrc, what).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(inline.length, what).toBeGreaterThan(0);
  for (const hash of inline) expect(allowed, what).toContain(hash);
}

// HTTP only: once is enough.
test.describe("caching, end to end", { tag: "@once" }, () => {
  const site = sites.js.url;

  for (const path of [...PAGES, "/?service=seo", "/work?category=ai"]) {
    test(`GET ${path} may be kept by shared caches, with a strong ETag`, async ({ request }) => {
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      expect(response.headers()["cache-control"]).toMatch(PUBLIC_PAGE);
      expect(response.headers()["etag"]).toMatch(/^"[^"]+"$/);
      expect(response.headers()["vary"]).toBe("Accept-Encoding");
    });
  }

  test("the answer to a post is private, no-store", async ({ request, baseURL }) => {
    // A page a post is answered with (the forms' mistakes are redirects to pages of their own).
    const response = await request.post("/?index", { headers: { Origin: baseURL! }, form: { formName: "newsletter", email: "" }, maxRedirects: 0 });
    expect(response.status()).toBe(400);
    expect(response.headers()["cache-control"]).toBe(PRIVATE);
  });

  test("a page with a per-visitor parameter (?sent=) is rendered for its request, private, never from the cache", async ({ request }) => {
    await request.get("/"); // the public page is in memory
    for (const path of ["/?sent=contact", "/?sent=calculator", "/?service=ai&sent=contact", "/?sent=contact&utm_source=x"]) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["cache-control"], path).toBe(PRIVATE);
      expect(response.headers()["etag"], path).toBeUndefined();
      expectHashedScripts(response.headers()["content-security-policy"], await response.text(), path);
    }
    expect(await (await request.get("/?sent=contact")).text()).toContain(messages.contactSent);
  });

  test("a 404 is private, no-store, and its inline scripts are allowed too", async ({ request }) => {
    const response = await request.get("/no-such-page");
    expect(response.status()).toBe(404);
    expect(response.headers()["cache-control"]).toBe(PRIVATE);
    expectHashedScripts(response.headers()["content-security-policy"], await response.text(), "404");
  });

  test("static build files are immutable, and sent as the brotli or gzip file made at build time", async ({ request }) => {
    const html = await (await request.get("/")).text();
    const src = /\/build\/[^"]+\.js/.exec(html)?.[0];
    expect(src).toBeTruthy();
    const plain = await request.get(src!, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers()["content-encoding"]).toBeUndefined();
    for (const [accept, encoding, suffix] of [
      ["br, gzip", "br", ".br"],
      ["gzip", "gzip", ".gz"],
    ] as const) {
      const response = await request.get(src!, { headers: { "Accept-Encoding": accept } });
      expect(response.headers()["content-encoding"], accept).toBe(encoding);
      expect(response.headers()["vary"], accept).toMatch(/Accept-Encoding/i);
      expect(response.headers()["cache-control"], accept).toBe("public, max-age=31536000, immutable");
      // The bytes on the wire are the file written at build time (Playwright decodes the body).
      const onDisk = readFileSync(`public${new URL(response.url()).pathname}${suffix}`);
      expect(Number(response.headers()["content-length"]), accept).toBe(onDisk.length);
      expect((await response.body()).equals(await plain.body()), accept).toBe(true);
    }
  });

  for (const path of ["/", "/work?category=ai", "/?sent=contact", "/no-such-page"]) {
    test(`GET ${path}: the same bytes for every visitor, no nonce, every inline script allowed by its hash`, async ({ request }) => {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const response = await request.get(path);
        answers.push({ csp: response.headers()["content-security-policy"], html: await response.text() });
      }
      for (const { csp, html } of answers) expectHashedScripts(csp, html, path);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    });
  }

  test("each page goes out precompressed: brotli within 3% of brotli-11 of the same page, with a stated length", async () => {
    for (const path of PAGES) {
      const identity = await raw(`${site}${path}`);
      const br = await raw(`${site}${path}`, { "Accept-Encoding": "gzip, deflate, br, zstd" });
      expect(br.headers["content-encoding"], path).toBe("br");
      expect(br.headers["transfer-encoding"], path).toBeUndefined();
      expect(Number(br.headers["content-length"]), path).toBe(br.body.length);
      expect(brotliDecompressSync(br.body).equals(identity.body), path).toBe(true);
      const best = brotliCompressSync(identity.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      expect(br.body.length, `${path}: ${br.body.length} B against brotli-11's ${best} B`).toBeLessThanOrEqual(Math.ceil(best * 1.03));
      expect(Number(identity.headers["content-length"]), path).toBe(identity.body.length);
    }
  });

  test("ETag: 304 for the copy a client has, HEAD from the same entry", async () => {
    for (const path of PAGES) {
      for (const accept of ["br", "gzip", "identity"]) {
        const first = await raw(`${site}${path}`, { "Accept-Encoding": accept });
        const etag = first.headers.etag!;
        expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const again = await raw(`${site}${path}`, { "Accept-Encoding": accept, "If-None-Match": etag });
        expect(again.status, `${path} ${accept}`).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        const head = await raw(`${site}${path}`, { "Accept-Encoding": accept }, "HEAD");
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        for (const name of ["etag", "content-length", "content-security-policy", "cache-control", "content-encoding"])
          expect(head.headers[name], `${path} ${accept} ${name}`).toEqual(first.headers[name]);
      }
      const stale = await raw(`${site}${path}`, { "If-None-Match": '"not-this-one"' });
      expect(stale.status).toBe(200);
    }
  });

  test("campaign and unknown parameters, and choices outside their lists, get the exact bytes of the page", async () => {
    const cases: [string, string][] = [
      ["/", "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring"],
      ["/", "/?gclid=Cj0KCQ&fbclid=IwAR0"],
      ["/", "/?anything=at-all&index"],
      ["/", "/?service=rocket-science"],
      ["/?service=seo", "/?service=seo&utm_source=x"],
      ["/?service=seo", "/?utm_source=x&service=seo"],
      ["/services", "/services?utm_source=x&gclid=1"],
      ["/work", "/work?category=nonsense&fbclid=2"],
      ["/work?category=ai", "/work?gclid=3&category=ai"],
    ];
    for (const [page, link] of cases) {
      for (const accept of ["br", "identity"]) {
        const expected = await raw(`${site}${page}`, { "Accept-Encoding": accept });
        const got = await raw(`${site}${link}`, { "Accept-Encoding": accept });
        expect(got.status, link).toBe(200);
        expect(createHash("sha256").update(got.body).digest("hex"), `${link} (${accept}) is ${page}`).toBe(
          createHash("sha256").update(expected.body).digest("hex"),
        );
        expect(got.headers.etag, link).toBe(expected.headers.etag);
        expect(got.headers["content-security-policy"], link).toBe(expected.headers["content-security-policy"]);
      }
    }
    // The canonical URL stays the page's own.
    const html = (await raw(`${site}/?utm_source=x`)).body.toString();
    expect(html).toMatch(/<link rel="canonical" href="[^"?]+\/"/);
  });

  test("a page's path in odd case is sent to its own lowercase path (301); an unknown one is a 404", async () => {
    const odd = await raw(`${site}/SeRvIcEs`);
    expect(odd.status).toBe(301);
    expect(odd.headers.location).toBe("/services");
    expect(odd.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect((await raw(`${site}/About?utm_source=x`)).headers.location).toBe("/about?utm_source=x");
    expect((await raw(`${site}/NoSuchPage`)).status).toBe(404);
  });
});

// One proxy in front of the JavaScript site is enough.
test.describe("behind a caching proxy (Varnish)", { tag: "@once" }, () => {
  test.describe.configure({ mode: "serial" });
  let varnish: Varnish;
  test.beforeAll(async () => {
    varnish = await startVarnish(sites.js.url);
  });
  test.afterAll(async () => {
    await varnish?.stop();
  });

  test("repeated requests never see a nonce, and every inline script in each kept page is allowed by the CSP header that came with it", async ({
    playwright,
  }) => {
    const client = await playwright.request.newContext({ baseURL: varnish.url });
    try {
      for (const path of [...PAGES, "/?service=seo", "/work?category=ai", "/?utm_source=newsletter", "/?sent=contact", "/no-such-page"]) {
        const answers = [];
        for (let i = 0; i < 4; i++) {
          const response = await client.get(path, { headers: { "Accept-Encoding": "gzip" } });
          const headers = response.headers();
          answers.push({
            csp: headers["content-security-policy"],
            html: await response.text(),
            hit: /^\d+ \d+$/.test(headers["x-varnish"] ?? ""),
            cacheControl: headers["cache-control"],
          });
        }
        for (const { csp, html } of answers) expectHashedScripts(csp, html, path);
        for (const answer of answers.slice(1)) {
          expect(answer.csp, path).toBe(answers[0]!.csp);
          expect(answer.html, path).toBe(answers[0]!.html);
        }
        const shared = !path.includes("sent=") && path !== "/no-such-page";
        // Public pages are kept by the proxy (answered from it after the first), per-visitor ones never.
        expect(
          answers.slice(1).every((a) => a.hit),
          `${path} hits`,
        ).toBe(shared);
        expect(answers[0]!.cacheControl, path).toBe(shared ? answers[0]!.cacheControl : PRIVATE);
      }
    } finally {
      await client.dispose();
    }
  });

  test("a browser with JavaScript, through the proxy, runs every page and the whole wizard with no CSP violation", async ({ browser, formService }) => {
    const context = await browser.newContext({ baseURL: varnish.url });
    try {
      const page = await context.newPage();
      const violations = await watchCsp(page);
      await walkTheSite(page, [...PAGES, "/?service=ai", "/work?category=software"], `Proxy ${formService.token}`);
      // Reloads come from the proxy's copy now: still no violation.
      for (const path of PAGES) await page.goto(path);
      expect(violations).toEqual([]);
      await expect.poll(async () => (await formService.received()).length).toBe(1);
    } finally {
      await context.close();
    }
  });
});

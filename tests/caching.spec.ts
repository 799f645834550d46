/** Caching end to end over HTTP, once: the server's own answers, and through a real caching proxy (Varnish). */
import { readFileSync } from "node:fs";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { expectHashedScripts, watchCsp } from "./support/csp";
import { calculator, fillDetails, progress, sendRequest } from "./support/wizard";
import { expect, raw, test } from "./support/fixtures";
import { type Proxy, startVarnish } from "./support/proxies";
import { sites } from "./support/sites";

/** Browsers ask again each time (max-age=0); a shared cache keeps it a while, and serves it stale a while more as it refreshes it. */
const PUBLIC_PAGE = /^public, max-age=0, s-maxage=[1-9]\d*, stale-while-revalidate=[1-9]\d*$/;
const PRIVATE = "private, no-store";
const PAGES = ["/", "/services", "/about", "/work"];

// The rules are server/page-cache.test.ts's and app/utils/cache-headers.test.ts's; here, the answers.
test.describe("caching, end to end", { tag: "@once" }, () => {
  test("a page (a tab, a category) is public, one strong ETag a coding, the same bytes for any campaign or unknown parameter, precompressed; 304 and HEAD", async () => {
    // Each page, then addresses whose extra parameters, or choices outside their lists, change nothing.
    for (const [path, ...links] of [
      ["/", "/?utm_source=mail&utm_medium=email&utm_campaign=spring", "/?gclid=Cj0KCQ&fbclid=IwAR0", "/?anything=at-all&index", "/?service=rocket-science"],
      ["/services", "/services?utm_source=x&gclid=1"],
      ["/about"],
      ["/work", "/work?category=nonsense&fbclid=2"],
      ["/?service=seo", "/?service=seo&utm_source=x", "/?utm_source=x&service=seo"],
      ["/work?category=ai", "/work?gclid=3&category=ai"],
    ] as [string, ...string[]][]) {
      const identity = await raw(path);
      expect(identity.headers["cache-control"], path).toMatch(PUBLIC_PAGE);
      expectHashedScripts(String(identity.headers["content-security-policy"]), identity.body.toString(), path);
      const br = await raw(path, { headers: { "Accept-Encoding": "gzip, deflate, br, zstd" } });
      expect([br.headers["content-encoding"], brotliDecompressSync(br.body).equals(identity.body)], path).toEqual(["br", true]);
      const best = brotliCompressSync(identity.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      expect(br.body.length, `${path}: ${br.body.length} B against brotli-11's ${best} B`).toBeLessThanOrEqual(Math.ceil(best * 1.03));
      expect((await raw(path, { headers: { "Accept-Encoding": "br;q=0, gzip" } })).headers["content-encoding"], path).toBe("gzip");
      const etags = new Set<string>();
      for (const accept of ["br", "gzip", "identity"]) {
        const first = await raw(path, { headers: { "Accept-Encoding": accept } });
        const [etag, what] = [first.headers.etag!, `${path} ${accept}`];
        etags.add(etag);
        const sent = [first.status, first.headers.vary, first.headers["transfer-encoding"], Number(first.headers["content-length"])];
        expect(sent, what).toEqual([200, "Accept-Encoding", undefined, first.body.length]);
        expect(etag, what).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const kept = await raw(path, { headers: { "Accept-Encoding": accept, "If-None-Match": etag } });
        expect([kept.status, kept.body.length, kept.headers.etag, kept.headers["cache-control"]], what).toEqual([304, 0, etag, first.headers["cache-control"]]);
        expect((await raw(path, { headers: { "Accept-Encoding": accept, "If-None-Match": `"other", W/${etag}` } })).status, what).toBe(304);
        expect((await raw(path, { headers: { "Accept-Encoding": accept, "If-None-Match": '"not-this-one"' } })).status, what).toBe(200);
        const head = await raw(path, { headers: { "Accept-Encoding": accept }, method: "HEAD" });
        expect([head.status, head.body.length], what).toEqual([200, 0]);
        for (const name of ["etag", "content-length", "content-security-policy", "cache-control", "content-encoding"])
          expect(head.headers[name], `${what} ${name}`).toEqual(first.headers[name]);
        // The same bytes each time, and for every other address of the page.
        for (const link of [path, ...links]) {
          const got = await raw(link, { headers: { "Accept-Encoding": accept } });
          expect([got.status, got.body.equals(first.body), got.headers.etag], `${link} (${accept}) is ${path}`).toEqual([200, true, etag]);
          expect(got.headers["content-security-policy"], link).toBe(first.headers["content-security-policy"]);
        }
      }
      expect(etags.size, `${path}: a validator a coding`).toBe(3);
    }
    expect((await raw("/?utm_source=x")).body.toString()).toMatch(/<link rel="canonical" href="[^"?]+\/"/);
  });

  test("static build files are immutable, and sent as the brotli or gzip file made at build time", async ({ request }) => {
    const src = /\/build\/[^"]+\.js/.exec(await (await request.get("/")).text())![0];
    const plain = await request.get(src, { headers: { "Accept-Encoding": "identity" } });
    expect([plain.headers()["cache-control"], plain.headers()["content-encoding"]]).toEqual(["public, max-age=31536000, immutable", undefined]);
    for (const [accept, encoding, suffix] of [
      ["br, gzip", "br", ".br"],
      ["gzip", "gzip", ".gz"],
    ] as const) {
      const response = await request.get(src, { headers: { "Accept-Encoding": accept } });
      expect([response.headers()["content-encoding"], response.headers()["cache-control"]], accept).toEqual([encoding, "public, max-age=31536000, immutable"]);
      expect(response.headers()["vary"], accept).toMatch(/Accept-Encoding/i);
      // The bytes on the wire are the file written at build time (Playwright decodes the body).
      const onDisk = readFileSync(`public${new URL(response.url()).pathname}${suffix}`);
      expect(Number(response.headers()["content-length"]), accept).toBe(onDisk.length);
      expect((await response.body()).equals(await plain.body()), accept).toBe(true);
    }
  });
});

test.describe("behind a caching proxy (Varnish)", { tag: "@once" }, () => {
  test.describe.configure({ mode: "serial" });
  let varnish: Proxy;
  test.beforeAll(async () => {
    varnish = await startVarnish(sites.js.url);
  });
  test.afterAll(async () => {
    await varnish?.stop();
  });

  test("every answer the same bytes, inline scripts allowed by hash; public pages kept, per-visitor ones (private, no ETag) never", async ({ playwright }) => {
    const client = await playwright.request.newContext({ baseURL: varnish.url });
    try {
      const perVisitor = ["/?sent=contact", "/?sent=calculator", "/?sent=", "/?service=ai&sent=contact", "/?sent=contact&utm_source=x", "/no-such-page"];
      for (const path of [...PAGES, "/?service=seo", "/work?category=ai", "/?utm_source=newsletter", ...perVisitor]) {
        const shared = !perVisitor.includes(path);
        const answers = [];
        for (let i = 0; i < 4; i++) {
          const response = await client.get(path, { headers: { "Accept-Encoding": "gzip" } });
          const { "content-security-policy": csp, "cache-control": cacheControl, etag, "x-varnish": via } = response.headers();
          answers.push({ status: response.status(), csp, html: await response.text(), cacheControl, etag, hit: /^\d+ \d+$/.test(via ?? "") });
        }
        for (const { csp, html } of answers) expectHashedScripts(csp, html, path);
        const [{ csp, html, cacheControl, etag }] = answers as [(typeof answers)[0]];
        const status = path === "/no-such-page" ? 404 : 200;
        expect(answers.map((a) => [a.status, a.csp, a.html, a.cacheControl, a.etag])).toEqual(
          answers.map(() => [status, csp, html, shared ? cacheControl : PRIVATE, shared ? etag : undefined]),
        );
        // Kept by the proxy: answered from it after the first.
        const hits = answers.slice(1).map((a) => a.hit);
        expect(hits, `${path} hits`).toEqual([shared, shared, shared]);
      }
      // A post's answer (here the action's 400 to a form not its own) is private too.
      const post = await client.post("/?index", { headers: { Origin: varnish.url }, form: { formName: "newsletter", email: "" }, maxRedirects: 0 });
      expect([post.status(), post.headers()["cache-control"]]).toEqual([400, PRIVATE]);
    } finally {
      await client.dispose();
    }
  });

  test("a browser through the proxy runs every page and the whole wizard with no CSP violation, fresh and kept", async ({ browser, formService }) => {
    const context = await browser.newContext({ baseURL: varnish.url });
    try {
      const page = await context.newPage();
      const violations = await watchCsp(page);
      // Every page hydrated by its load event, a tab, the work filter (same document), the wizard sent.
      for (const path of [...PAGES, "/?service=ai", "/work?category=software", "/no-such-page"]) {
        await page.goto(path);
        expect(await page.evaluate(() => "__remixRouter" in window), path).toBe(true);
      }
      await page.goto("/work");
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));
      await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link", { name: "AI Solutions" }).click();
      await expect(page).toHaveURL(/category=ai/);
      expect(await page.evaluate(() => "sameDocument" in window)).toBe(true);
      await page.goto("/?utm_source=newsletter&gclid=abc");
      await page.getByRole("tab", { name: "Zoho Solutions" }).click();
      await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toHaveAttribute("aria-selected", "true");
      const calc = calculator(page);
      for (const choice of ["AI Solutions", "Standard (3-4 weeks)", "Medium"]) await calc.getByRole("button", { name: choice, exact: true }).click();
      await calc.getByLabel("Project description").fill("A support chat assistant");
      await calc.getByRole("button", { name: "Continue" }).click();
      await fillDetails(page, { company: `Proxy ${formService.token}`, email: "csp@example.co.za", phone: "+27 11 555 0199" });
      await sendRequest(page);
      await expect(progress(page)).toHaveText("Step 1 of 5");
      await page.getByRole("link", { name: "Contact Us" }).first().click();
      // Reloads come from the proxy's copy now: still no violation.
      for (const path of PAGES) await page.goto(path);
      expect(violations).toEqual([]);
      await expect.poll(async () => (await formService.received()).length).toBe(1);
    } finally {
      await context.close();
    }
  });
});

/**
 * Caching end to end, over HTTP (once): public pages with a strong ETag and the same bytes for
 * every visitor (their CSP allows each inline script by its hash, no nonce), per-visitor answers
 * private, build files immutable and precompressed, 304s and HEAD, campaign parameters that change
 * nothing, and the same through a real caching proxy (Varnish) with a browser behind it, which
 * reports no CSP violation on any page or step.
 */
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { Page } from "@playwright/test";
import { messages } from "../app/content/messages";
import { expectHashedScripts, watchCsp } from "./support/csp";
import { calculator, fillDetails, progress } from "./support/wizard";
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

// HTTP only: once is enough. The rules (which address is which page, what is kept and how it is
// sent) are server/page-cache.test.ts's and app/utils/cache-headers.test.ts's; here, the server's answers.
test.describe("caching, end to end", { tag: "@once" }, () => {
  const site = sites.js.url;

  test("a page (a tab, a category) is public with a strong ETag, the same bytes each time, sent precompressed (brotli near brotli-11's size, with a length), 304 for the copy a client has and HEAD from the same entry", async () => {
    for (const path of [...PAGES, "/?service=seo", "/work?category=ai"]) {
      const identity = await raw(`${site}${path}`);
      expect([identity.status, identity.headers.vary, Number(identity.headers["content-length"])], path).toEqual([
        200,
        "Accept-Encoding",
        identity.body.length,
      ]);
      expect(identity.headers["cache-control"], path).toMatch(PUBLIC_PAGE);
      expectHashedScripts(String(identity.headers["content-security-policy"]), identity.body.toString(), path);
      const again = await raw(`${site}${path}`);
      expect([again.headers["content-security-policy"], again.body.equals(identity.body)], path).toEqual([identity.headers["content-security-policy"], true]);
      const br = await raw(`${site}${path}`, { "Accept-Encoding": "gzip, deflate, br, zstd" });
      expect([br.headers["content-encoding"], br.headers["transfer-encoding"], Number(br.headers["content-length"])], path).toEqual([
        "br",
        undefined,
        br.body.length,
      ]);
      expect(brotliDecompressSync(br.body).equals(identity.body), path).toBe(true);
      const best = brotliCompressSync(identity.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      expect(br.body.length, `${path}: ${br.body.length} B against brotli-11's ${best} B`).toBeLessThanOrEqual(Math.ceil(best * 1.03));
      for (const accept of ["br", "gzip", "identity"]) {
        const first = await raw(`${site}${path}`, { "Accept-Encoding": accept });
        const etag = first.headers.etag!;
        expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const kept = await raw(`${site}${path}`, { "Accept-Encoding": accept, "If-None-Match": etag });
        expect([kept.status, kept.body.length, kept.headers.etag], `${path} ${accept}`).toEqual([304, 0, etag]);
        const head = await raw(`${site}${path}`, { "Accept-Encoding": accept }, "HEAD");
        expect([head.status, head.body.length], `${path} ${accept}`).toEqual([200, 0]);
        for (const name of ["etag", "content-length", "content-security-policy", "cache-control", "content-encoding"])
          expect(head.headers[name], `${path} ${accept} ${name}`).toEqual(first.headers[name]);
      }
      expect((await raw(`${site}${path}`, { "If-None-Match": '"not-this-one"' })).status).toBe(200);
    }
  });

  test("per-visitor pages, a 404, a post's answer: rendered for their request, private, the same bytes, scripts allowed", async ({ request, baseURL }) => {
    await request.get("/"); // the public page is in memory
    for (const path of ["/?sent=contact", "/?sent=calculator", "/?service=ai&sent=contact", "/?sent=contact&utm_source=x", "/no-such-page"]) {
      const [one, two] = [await request.get(path), await request.get(path)];
      expect([one.status(), one.headers()["cache-control"], one.headers()["etag"]], path).toEqual([path === "/no-such-page" ? 404 : 200, PRIVATE, undefined]);
      expectHashedScripts(one.headers()["content-security-policy"], await one.text(), path);
      expect([two.headers()["content-security-policy"], await two.text()], path).toEqual([one.headers()["content-security-policy"], await one.text()]);
    }
    expect(await (await request.get("/?sent=contact")).text()).toContain(messages.contactSent);
    // A page a post is answered with (the forms' mistakes are redirects to pages of their own).
    const post = await request.post("/?index", { headers: { Origin: baseURL! }, form: { formName: "newsletter", email: "" }, maxRedirects: 0 });
    expect([post.status(), post.headers()["cache-control"]]).toEqual([400, PRIVATE]);
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

  test("campaign and unknown parameters, and choices outside their lists, get the exact bytes of the page, whose canonical URL stays its own", async () => {
    for (const [page, link] of [
      ["/", "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring"],
      ["/", "/?gclid=Cj0KCQ&fbclid=IwAR0"],
      ["/", "/?anything=at-all&index"],
      ["/", "/?service=rocket-science"],
      ["/?service=seo", "/?service=seo&utm_source=x"],
      ["/?service=seo", "/?utm_source=x&service=seo"],
      ["/services", "/services?utm_source=x&gclid=1"],
      ["/work", "/work?category=nonsense&fbclid=2"],
      ["/work?category=ai", "/work?gclid=3&category=ai"],
    ]) {
      for (const accept of ["br", "identity"]) {
        const [expected, got] = [await raw(`${site}${page}`, { "Accept-Encoding": accept }), await raw(`${site}${link}`, { "Accept-Encoding": accept })];
        expect([got.status, got.body.equals(expected.body), got.headers.etag], `${link} (${accept}) is ${page}`).toEqual([200, true, expected.headers.etag]);
        expect(got.headers["content-security-policy"], link).toBe(expected.headers["content-security-policy"]);
      }
    }
    expect((await raw(`${site}/?utm_source=x`)).body.toString()).toMatch(/<link rel="canonical" href="[^"?]+\/"/);
  });
});

/** Every page, the services tabs, the work filter, then the whole wizard sent (JavaScript on). */
async function walkTheSite(page: Page, paths: string[], company: string) {
  for (const path of paths) {
    await page.goto(path);
    expect(await page.evaluate(() => "__remixRouter" in window), path).toBe(true);
  }
  await page.goto("/work");
  await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/category=ai/);
  await page.goto("/?utm_source=newsletter&gclid=abc");
  await page.getByRole("tab", { name: "Zoho Solutions" }).click();
  await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toHaveAttribute("aria-selected", "true");
  const calc = calculator(page);
  for (const choice of ["AI Solutions", "Standard (3-4 weeks)", "Medium"]) await calc.getByRole("button", { name: choice, exact: true }).click();
  await calc.getByLabel("Project description").fill("A support chat assistant");
  await calc.getByRole("button", { name: "Continue" }).click();
  await fillDetails(page, { company, email: "csp@example.co.za", phone: "+27 11 555 0199" });
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  await expect(progress(page)).toHaveText("Step 1 of 5");
}

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

  test("repeated requests never see a nonce; each kept page's inline scripts are allowed by its CSP header", async ({ playwright }) => {
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

  test("a browser through the proxy runs every page and the whole wizard with no CSP violation, fresh and kept", async ({ browser, formService }) => {
    const context = await browser.newContext({ baseURL: varnish.url });
    try {
      const page = await context.newPage();
      const violations = await watchCsp(page);
      await walkTheSite(page, [...PAGES, "/?service=ai", "/work?category=software", "/no-such-page"], `Proxy ${formService.token}`);
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

import { readFileSync } from "node:fs";
import { expect, test } from "./support/fixtures";

const PUBLIC_PAGE = /^public, max-age=0, s-maxage=\d+, stale-while-revalidate=\d+$/;
const PRIVATE = "private, no-store";

/** The nonce in a response's CSP header, and every nonce on the page's <script> tags. */
function nonces(csp: string | undefined, html: string) {
  const header = /'nonce-([^']+)'/.exec(csp ?? "")?.[1];
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => /\bnonce="([^"]*)"/.exec(m[0])?.[1]);
  return { header, scripts };
}

test.describe("caching and the CSP nonce, end to end", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "HTTP only: once is enough");

  for (const path of ["/", "/services", "/about", "/work", "/?service=seo", "/work?category=ai"]) {
    test(`GET ${path} may be kept by shared caches`, async ({ request }) => {
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      expect(response.headers()["cache-control"]).toMatch(PUBLIC_PAGE);
    });
  }

  test("the answer to a post is private, no-store", async ({ request, baseURL }) => {
    const response = await request.post("/?index", {
      headers: { Origin: baseURL! },
      form: { formName: "contact", name: "", email: "", service: "", message: "" },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(400);
    expect(response.headers()["cache-control"]).toBe(PRIVATE);
  });

  test("the thank-you page a successful post redirects to (?sent=) is private, no-store", async ({ request }) => {
    for (const path of ["/?sent=contact", "/?sent=calculator", "/?service=ai&sent=contact"]) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["cache-control"], path).toBe(PRIVATE);
    }
  });

  test("a 404 is private, no-store", async ({ request }) => {
    const response = await request.get("/no-such-page");
    expect(response.status()).toBe(404);
    expect(response.headers()["cache-control"]).toBe(PRIVATE);
  });

  test("static build files are immutable, and sent as the brotli or gzip file made at build time", async ({ request }) => {
    const html = await (await request.get("/")).text();
    const src = /\/build\/[^"]+\.js/.exec(html)?.[0];
    expect(src).toBeTruthy();
    const plain = await request.get(src!, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers()["content-encoding"]).toBeUndefined();
    for (const [accept, encoding, suffix] of [["br, gzip", "br", ".br"], ["gzip", "gzip", ".gz"]] as const) {
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

  test("a cached page states its exact length, so it goes out in one piece", async ({ request }) => {
    for (let i = 0; i < 2; i++) {
      const response = await request.get("/", { headers: { "Accept-Encoding": "identity" } });
      const body = await response.body();
      expect(response.headers()["transfer-encoding"]).toBeUndefined();
      expect(Number(response.headers()["content-length"])).toBe(body.length);
    }
  });

  for (const path of ["/", "/work?category=ai", "/?sent=contact", "/no-such-page"]) {
    test(`GET ${path}: every response has its own nonce, in its CSP header and on every script`, async ({ request }) => {
      const seen = new Set<string>();
      const bodies: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await request.get(path);
        const html = await response.text();
        const { header, scripts } = nonces(response.headers()["content-security-policy"], html);
        expect(header).toMatch(/^[A-Za-z0-9+/]{22}==$/);
        expect(scripts.length).toBeGreaterThan(0);
        for (const nonce of scripts) expect(nonce).toBe(header);
        seen.add(header!);
        bodies.push(html.replaceAll(header!, "NONCE"));
      }
      expect(seen.size).toBe(3);
      // Rendered once or each time, the page is the same apart from the nonce.
      expect(bodies[1]).toBe(bodies[0]);
      expect(bodies[2]).toBe(bodies[0]);
    });
  }
});

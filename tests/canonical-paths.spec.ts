/**
 * One address per path, as the server answers requests sent as written (`raw`); which spelling
 * becomes which, and that none leads to another host, is server/canonical-path.test.ts's.
 */
import { expect, raw, test } from "./support/fixtures";

/** Every URL-valued attribute in a page, and the ones that would not stay on this site's root. */
function strayLinks(html: string): string[] {
  const values = [...html.matchAll(/\s(?:href|src|action|formaction|poster|srcset)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
  expect(values.length).toBeGreaterThan(5);
  // A data: URL (the hero picture's empty source) is whole in itself.
  return values.filter((value) => !/^(?:\/(?![/\\])|#|https:\/\/|mailto:|tel:|data:)/.test(value));
}

test.describe("one address per path", { tag: "@once" }, () => {
  test("another spelling of a path is a 301 to its one address in one hop, query kept; a post there is refused unread", async ({ formService, baseURL }) => {
    for (const [path, location] of [
      ["//?service=seo", "/?service=seo"],
      ["/./", "/"],
      ["/work/../about", "/about"],
      ["//SERVICES/?utm_source=x", "/services?utm_source=x"],
      ["/SeRvIcEs", "/services"],
      ["/About?utm_source=x", "/about?utm_source=x"],
      ["/%61bout?utm_source=mail&service=seo", "/about?utm_source=mail&service=seo"],
      ["/work\\", "/work"],
      ["//evil.example/", "/evil.example"],
      ["/no-such-page/", "/no-such-page"],
      ["/%72obots.txt", "/robots.txt"],
      ["/healthz/", "/healthz"],
      ["/build//x.js", "/build/x.js"],
    ]) {
      for (const method of ["GET", "HEAD"]) {
        const answer = await raw(path!, { method });
        const { location: to, "cache-control": cacheControl, "content-length": length } = answer.headers;
        expect([answer.status, to, cacheControl, length, String(answer.body)], `${method} ${path}`).toEqual([301, location, "public, max-age=3600", "0", ""]);
      }
      expect((await raw(location!)).status, `${path} → ${location}`).not.toBe(301);
    }
    // An unknown path in odd case is not a page's: a 404.
    expect((await raw("/NoSuchPage")).status).toBe(404);
    const form = new URLSearchParams({ formName: "contact", name: `Eve ${formService.token}`, email: "eve@example.com", service: "seo", message: "Hi" });
    const post = (path: string) =>
      raw(path, { method: "POST", body: form.toString(), headers: { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" } });
    for (const path of ["//?index", "/%2e/?index", "/\\?index"]) {
      const answer = await post(path);
      const said = [answer.status, answer.headers["cache-control"], answer.headers.connection, String(answer.body)];
      expect(said, path).toEqual([404, "private, no-store", "close", "Not found"]);
    }
    // A page in odd case takes the post on to its route, whose action there is none (405), not a 301 that would lose it.
    expect((await post("/About")).status).toBe(405);
    expect(await formService.settled()).toEqual([]);
  });

  test("every link a page renders is site-relative to the real root, whatever address it was asked for at", async () => {
    const paths = ["/", "/services", "/about", "/work", "/privacy", "/?service=seo", "/work?category=ai", "/?sent=contact", "/no-such-page"];
    const odd = ["//", "//?service=seo", "/\\", "/./work", "/%2e/?service=ai", "/work/", "/%2F", "/work%2F", "/%5Cevil.example", "//no-such-page/"];
    for (const asked of [...paths, ...odd]) {
      let path = asked;
      let answer = await raw(path);
      for (let hops = 0; answer.status === 301 && hops < 3; hops++) answer = await raw((path = answer.headers.location!));
      expect(answer.status, asked).not.toBe(301);
      expect(answer.status, asked).toBeLessThan(500);
      expect(strayLinks(String(answer.body)), `${asked}, answered at ${path}`).toEqual([]);
    }
  });
});

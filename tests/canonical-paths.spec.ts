/**
 * One address per path: every other spelling of a path (repeated or trailing slashes, dot
 * segments, escaped unreserved characters, backslashes) is sent to it with a 301 before anything
 * renders, and every link a page renders is site-relative to the real root. Requests go out as
 * written (node:http sends the path as it is given; a browser or fetch would tidy some of them).
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { expect, newClient, test } from "./support/fixtures";
import { sites } from "./support/sites";

const site = sites.js.url;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function raw(path: string, { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${site}/`, { method, path, headers: { "X-Forwarded-For": newClient(), ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on("error", reject).end(body);
  });
}

/** Every URL-valued attribute in a page, and the ones that would not stay on this site's root. */
function strayLinks(html: string): string[] {
  const values = [...html.matchAll(/\s(?:href|src|action|formaction|poster|srcset)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
  expect(values.length).toBeGreaterThan(5);
  // A data: URL (the hero picture's empty source) is whole in itself.
  return values.filter((value) => !/^(?:\/(?![/\\])|#|https:\/\/|mailto:|tel:|data:)/.test(value));
}

// HTTP only: once is enough.
test.describe("one address per path", { tag: "@once" }, () => {
  const odd: [string, string][] = [
    ["//", "/"],
    ["///", "/"],
    ["//?service=seo", "/?service=seo"],
    ["///work", "/work"],
    ["/work//", "/work"],
    ["/work/", "/work"],
    ["/services/", "/services"],
    ["/SERVICES/", "/services"],
    ["/./", "/"],
    ["/%2e/", "/"],
    ["/%2E%2e/?x", "/?x"],
    ["/..", "/"],
    ["/work/../about", "/about"],
    ["/about/.", "/about"],
    ["/%73ervices", "/services"],
    ["/%61bout?utm_source=mail&service=seo", "/about?utm_source=mail&service=seo"],
    ["/\\", "/"],
    ["/work\\", "/work"],
    ["/\\work", "/work"],
    ["/./?x", "/?x"],
    ["/no-such-page/", "/no-such-page"],
    ["/robots.txt/", "/robots.txt"],
    ["/%72obots.txt", "/robots.txt"],
    ["/healthz/", "/healthz"],
    ["/build//x.js", "/build/x.js"],
  ];

  test("every other spelling of a path is a 301 to its one address, its query kept, never a page", async () => {
    for (const [path, location] of odd) {
      for (const method of ["GET", "HEAD"]) {
        const answer = await raw(path, { method });
        expect(answer.status, `${method} ${path}`).toBe(301);
        expect(answer.headers.location, `${method} ${path}`).toBe(location);
        expect(answer.body, `${method} ${path}`).toBe("");
        expect(answer.headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
        expect(answer.headers["x-content-type-options"], path).toBe("nosniff");
      }
    }
  });

  test("one hop: the address a 301 names answers for itself", async () => {
    for (const [path, location] of odd) {
      const next = await raw(location);
      expect(next.status, `${path} → ${location}`).not.toBe(301);
    }
  });

  test("a 301 never sends a browser to another host, however the path is spelt", async () => {
    for (const path of [
      "//evil.example/",
      "///evil.example",
      "/\\evil.example",
      "/\\/evil.example",
      "/.//evil.example",
      "/%2e//evil.example/",
      "/..//evil.example",
    ]) {
      const answer = await raw(path);
      expect(answer.status, path).toBe(301);
      const location = answer.headers.location!;
      expect(location, path).toMatch(/^\/(?![/\\])/);
      expect(new URL(location, `${site}${path.replace(/\\/g, "/")}`).origin, path).toBe(site);
    }
  });

  test("a form posted to another spelling of a path is refused unread (404), never an action", async ({ formService, baseURL }) => {
    const form = new URLSearchParams({ formName: "contact", name: `Eve ${formService.token}`, email: "eve@example.com", service: "seo", message: "Hi" });
    for (const path of ["//?index", "/./?index", "/%2e/?index", "/\\?index"]) {
      const answer = await raw(path, {
        method: "POST",
        body: form.toString(),
        headers: { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(answer.status, path).toBe(404);
      expect(answer.headers["cache-control"], path).toBe("private, no-store");
    }
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
      expect(strayLinks(answer.body), `${asked}, answered at ${path}`).toEqual([]);
    }
  });
});

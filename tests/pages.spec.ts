/** What every page has, the pages without behaviour of their own, the 404, and the files around the pages. */
import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { services } from "../app/content/services";
import { site } from "../app/content/site";

/** Each page, and what it shows beyond what every page has. */
const pages: { path: string; heading: string | RegExp; nav: string | null; shows?: (page: Page) => Promise<void> }[] = [
  { path: "/", heading: /./, nav: "Home" },
  {
    path: "/services",
    heading: "What we build for you",
    nav: "Services",
    shows: async (page) => {
      for (const name of ["Software Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"])
        await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
      expect(await page.getByRole("img", { name: "Rated 5 out of 5" }).count()).toBeGreaterThanOrEqual(3);
      await expect(page.locator("figure.testimonial img").first()).toHaveAttribute("width", /\d+/);
      await page.getByRole("link", { name: "Estimate My Project" }).click();
      await expect(page).toHaveURL(/\/#wizard$/);
    },
  },
  { path: "/work", heading: "Projects we are proud of", nav: "Our Work" },
  {
    path: "/about",
    heading: /./,
    nav: "About",
    shows: async (page) => {
      await expect(page.getByRole("heading", { name: "Our story" })).toBeVisible();
      await expect(page.getByRole("heading", { name: "How we work" })).toBeVisible();
      const members = page.locator("article.member");
      expect(await members.count()).toBeGreaterThanOrEqual(3);
      await expect(members.first().getByRole("img")).toHaveAttribute("alt", /.+/);
    },
  },
  {
    path: "/privacy",
    heading: "Privacy notice",
    nav: null,
    // What it says is app/content's (content.test.ts); here, that the page says it with the server's settings.
    shows: async (page) => {
      const main = page.getByRole("main");
      for (const heading of [
        "What we collect",
        "Why we collect it",
        "Who receives it",
        "Where it is kept, and for how long",
        "Your rights",
        "How to ask",
        "Our information officer",
      ])
        await expect(main.getByRole("heading", { level: 2, name: heading })).toBeVisible();
      await expect(main).toContainText("We also delete the copy Web3Forms emailed to our inbox.");
      await expect(main).toContainText("30 days");
      // What the lead store keeps of an address (decision 0031): a code, never the address.
      await expect(main).toContainText(/a code worked out from your address .* cannot be turned back into your address\. The code is deleted about an hour/);
      const officer = site.informationOfficer.email;
      await expect(main.getByRole("link", { name: officer })).toHaveAttribute("href", `mailto:${officer}`);
      await expect(page).toHaveTitle(/Privacy notice \|/);
    },
  },
];

// The pages but / are the same markup with JavaScript and without (accessibility.spec.ts): they are checked once.
test("every page renders its heading, current nav link, footer, meta tags and content", async ({ page, javaScriptEnabled }) => {
  for (const { path, heading, nav, shows } of pages) {
    if (!javaScriptEnabled && path !== "/") continue;
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    const current = page.getByRole("navigation", { name: "Main" }).locator('a[aria-current="page"]');
    await expect(current).toHaveCount(nav ? 1 : 0);
    if (nav) await expect(current).toHaveText(nav);
    const footer = page.getByRole("contentinfo");
    await expect(footer.getByRole("link", { name: "Privacy notice" })).toHaveAttribute("href", "/privacy");
    await expect(footer).toContainText(`${site.address.city}, ${site.address.country}`);
    await expect(footer).toContainText(`© ${new Date().getFullYear()}`);
    await expect(footer.getByRole("link", { name: site.email })).toHaveAttribute("href", `mailto:${site.email}`);
    await expect(footer.getByRole("link", { name: site.phone })).toHaveAttribute("href", site.phoneHref);
    await expect(footer.getByRole("heading", { name: "Follow us" })).toBeVisible();
    for (const service of services) await expect(footer.getByRole("link", { name: service.name })).toBeVisible();
    await expect(page).toHaveTitle(/.+\|.+/);
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /.{50,}/);
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", /.+/);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", new RegExp(`^https://[^/]+${path === "/" ? "/$" : `${path}$`}`));
    await shows?.(page);
  }
});

test("an unknown path and /steps answer the site's 404 page, private, no stack trace", async ({ page }) => {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && !m.text().includes("404") && problems.push(m.text()));
  for (const path of ["/no-such-page", "/steps"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    expect(response?.headers()["content-type"], path).toMatch(/^text\/html/);
    expect(response?.headers()["cache-control"], path).toBe("private, no-store");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("We can’t find that page");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByRole("contentinfo")).toBeVisible();
    await expect(page).toHaveTitle(/Page not found/);
    await expect(page.locator("body")).not.toContainText(/at .*\.js:\d+/);
  }
  // With JavaScript the page is taken over as any 404 is, its links within the site working.
  await page.getByRole("link", { name: "See Our Services" }).click();
  await expect(page).toHaveURL(/\/services$/);
  expect(problems).toEqual([]);
});

test.describe("over HTTP", { tag: "@once" }, () => {
  // GET /steps is the 404 test's above.
  test("HEAD of /steps gets the 404 page; a post to a read-only address a 405", async ({ request, baseURL }) => {
    const head = await request.head("/steps", { maxRedirects: 0 });
    expect([head.status(), head.headers()["content-type"]]).toEqual([404, expect.stringMatching(/^text\/html/)]);
    // Never Remix's own error as JSON.
    for (const path of ["/healthz", "/robots.txt", "/sitemap.xml"]) {
      const response = await request.post(path, { form: { a: "b" }, headers: { Origin: baseURL! }, maxRedirects: 0 });
      expect(response.status(), path).toBe(405);
      expect(response.headers()["allow"], path).toBe("GET, HEAD");
      expect(response.headers()["content-type"], path).toMatch(/^text\/plain/);
      expect((await request.get(path)).status(), path).toBe(200);
    }
    // The beacon itself is counted as before: 204, whatever was posted.
    expect((await request.post("/steps", { form: { event: "not-a-step" }, headers: { Origin: baseURL! } })).status()).toBe(204);
  });

  test("robots.txt, the sitemap, the Open Graph image and the icons are linked and served", async ({ page, request }) => {
    expect(await (await request.get("/robots.txt")).text()).toMatch(/Sitemap: https:\/\/.+\/sitemap\.xml/);
    const sitemap = await request.get("/sitemap.xml");
    expect(sitemap.headers()["content-type"]).toContain("xml");
    const xml = await sitemap.text();
    for (const path of ["/services", "/work", "/about", "/privacy"]) expect(xml).toContain(`${path}</loc>`);

    await page.goto("/about");
    const image = await page.locator('meta[property="og:image"]').getAttribute("content");
    const og = await request.get(new URL(image!).pathname);
    expect([og.status(), og.headers()["content-type"]]).toEqual([200, "image/jpeg"]);
    await expect(page.locator('head link[rel="icon"][href="/favicon.ico"]')).toHaveCount(1);
    await expect(page.locator('head link[rel="icon"][type="image/svg+xml"]')).toHaveCount(1);
    await expect(page.locator('head link[rel="apple-touch-icon"]')).toHaveAttribute("href", "/apple-touch-icon.png");
    const ico = await request.get("/favicon.ico");
    expect([ico.status(), ico.headers()["content-type"]]).toEqual([200, expect.stringMatching(/image\/(x-icon|vnd\.microsoft\.icon)/)]);
    expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0])); // ICO header
    const touch = await request.get("/apple-touch-icon.png");
    expect(touch.headers()["content-type"]).toBe("image/png");
    const png = await touch.body();
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([180, 180]);
  });
});

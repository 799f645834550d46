/**
 * What every page has, with JavaScript on and off: its heading, the current link marked in the
 * header, the footer and meta tags (axe checks every page in accessibility.spec.ts, in both projects,
 * at this width and more strictly); the pages that hold no behaviour of
 * their own (/services, /about); the 404; and the files around the pages (robots.txt, the
 * sitemap, the icons, the Open Graph image). Each page's own behaviour has a spec of its own.
 */
import { expect, test } from "./support/fixtures";
import { services } from "../app/content/services";
import { site } from "../app/content/site";

const pages = [
  { path: "/", heading: /./, nav: "Home" },
  { path: "/services", heading: "What we build for you", nav: "Services" },
  { path: "/work", heading: "Projects we are proud of", nav: "Our Work" },
  { path: "/about", heading: /./, nav: "About" },
  { path: "/privacy", heading: "Privacy notice", nav: null },
];

for (const { path, heading, nav } of pages) {
  test(`${path} renders with its nav link current, a footer and meta tags`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    const current = page.getByRole("navigation", { name: "Main" }).locator('a[aria-current="page"]');
    await expect(current).toHaveCount(nav ? 1 : 0);
    if (nav) await expect(current).toHaveText(nav);
    await expect(page.getByRole("contentinfo").getByRole("link", { name: "Privacy notice" })).toHaveAttribute("href", "/privacy");

    const footer = page.getByRole("contentinfo");
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
  });
}

test("/services shows testimonials with accessible five-star ratings and a call to action", { tag: "@once" }, async ({ page }) => {
  await page.goto("/services");
  for (const name of ["Software Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"]) {
    await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
  }
  const ratings = page.getByRole("img", { name: "Rated 5 out of 5" });
  expect(await ratings.count()).toBeGreaterThanOrEqual(3);
  await expect(page.locator("figure.testimonial img").first()).toHaveAttribute("width", /\d+/);
  await page.getByRole("link", { name: "Estimate My Project" }).click();
  await expect(page).toHaveURL(/\/#wizard$/);
});

test("/about shows the story, values and team", { tag: "@once" }, async ({ page }) => {
  await page.goto("/about");
  await expect(page.getByRole("heading", { name: "Our story" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "How we work" })).toBeVisible();
  const members = page.locator("article.member");
  expect(await members.count()).toBeGreaterThanOrEqual(3);
  await expect(members.first().getByRole("img")).toHaveAttribute("alt", /.+/);
});

test("an unknown route answers 404 in the site's look, without a stack trace", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("We can’t find that page");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByRole("contentinfo")).toBeVisible();
  await expect(page).toHaveTitle(/Page not found/);
  await expect(page.locator("body")).not.toContainText(/at .*\.js:\d+/);
});

test("a path that only takes the funnel's beacon (/steps) is, to a visitor who opens it, an unknown path: the site's 404 page", async ({ page }) => {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && !m.text().includes("404") && problems.push(m.text()));
  const response = await page.goto("/steps");
  expect(response?.status()).toBe(404);
  expect(response?.headers()["content-type"]).toMatch(/^text\/html/);
  expect(response?.headers()["cache-control"]).toBe("private, no-store");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("We can’t find that page");
  await expect(page).toHaveTitle(/Page not found/);
  // With JavaScript the page is taken over as any 404 is, its links within the site working.
  await page.getByRole("link", { name: "See Our Services" }).click();
  await expect(page).toHaveURL(/\/services$/);
  expect(problems).toEqual([]);
});

test(
  "GET and HEAD of the funnel's beacon get the 404 page; a post to an address that only answers reads gets a 405 naming what it takes",
  { tag: "@once" },
  async ({ request, baseURL }) => {
    for (const method of ["GET", "HEAD"]) {
      const response = await request.fetch("/steps", { method, maxRedirects: 0 });
      expect(response.status(), method).toBe(404);
      expect(response.headers()["content-type"], method).toMatch(/^text\/html/);
      if (method === "GET") expect(await response.text()).toContain("We can’t find that page");
    }
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
  },
);

test("robots.txt and sitemap.xml", { tag: "@once" }, async ({ request }) => {
  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toMatch(/Sitemap: https:\/\/.+\/sitemap\.xml/);
  const sitemap = await request.get("/sitemap.xml");
  expect(sitemap.headers()["content-type"]).toContain("xml");
  const xml = await sitemap.text();
  for (const path of ["/services", "/work", "/about", "/privacy"]) expect(xml).toContain(`${path}</loc>`);
});

test("the Open Graph image every page names is served", { tag: "@once" }, async ({ page, request }) => {
  await page.goto("/");
  const image = await page.locator('meta[property="og:image"]').getAttribute("content");
  const response = await request.get(new URL(image!).pathname);
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toBe("image/jpeg");
});

test("favicon.ico and the apple-touch-icon are linked and served as images", { tag: "@once" }, async ({ page, request }) => {
  await page.goto("/about");
  await expect(page.locator('head link[rel="icon"][href="/favicon.ico"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="icon"][type="image/svg+xml"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="apple-touch-icon"]')).toHaveAttribute("href", "/apple-touch-icon.png");
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0])); // ICO header
  const touch = await request.get("/apple-touch-icon.png");
  expect(touch.headers()["content-type"]).toBe("image/png");
  const png = await touch.body();
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([180, 180]);
});

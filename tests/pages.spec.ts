import { expect, test } from "./support/fixtures";
import { seriousViolations } from "./support/axe";

const pages = [
  { path: "/", heading: /./, nav: "Home" },
  { path: "/services", heading: "What we build for you", nav: "Services" },
  { path: "/work", heading: "Projects we are proud of", nav: "Our Work" },
  { path: "/about", heading: /./, nav: "About" },
  { path: "/privacy", heading: "Privacy notice", nav: null },
];

for (const { path, heading, nav } of pages) {
  test(`${path} renders with its nav link current, a footer, meta tags and no serious axe violations`, async ({ page, browser, javaScriptEnabled }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    const current = page.getByRole("navigation", { name: "Main" }).locator('a[aria-current="page"]');
    await expect(current).toHaveCount(nav ? 1 : 0);
    if (nav) await expect(current).toHaveText(nav);
    await expect(page.getByRole("contentinfo").getByRole("link", { name: "Privacy notice" })).toHaveAttribute("href", "/privacy");

    const footer = page.getByRole("contentinfo");
    await expect(footer).toContainText("Johannesburg, South Africa");
    await expect(footer).toContainText(`© ${new Date().getFullYear()}`);
    await expect(footer.getByRole("link", { name: /@/ })).toHaveAttribute("href", /^mailto:/);
    await expect(footer.getByRole("link", { name: /\+27/ })).toHaveAttribute("href", /^tel:\+27/);
    await expect(footer.getByRole("heading", { name: "Follow us" })).toBeVisible();
    for (const service of ["Software Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"]) {
      await expect(footer.getByRole("link", { name: service })).toBeVisible();
    }

    await expect(page).toHaveTitle(/.+\|.+/);
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /.{50,}/);
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", /.+/);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", new RegExp(`^https://[^/]+${path === "/" ? "/$" : `${path}$`}`));

    expect(await seriousViolations(page, browser, javaScriptEnabled)).toEqual([]);
  });
}

test("home hero shows the three claims and its two buttons lead to the calculator and /work", async ({ page }) => {
  await page.goto("/");
  const hero = page.locator(".hero");
  for (const text of ["10+", "Projects completed", "80%", "Client satisfaction", "2+", "Years experience"]) {
    await expect(hero).toContainText(text);
  }
  await expect(hero.getByRole("link", { name: "Get Started" })).toHaveAttribute("href", /#wizard$/);
  await hero.getByRole("link", { name: "View Our Work" }).click();
  await expect(page).toHaveURL(/\/work$/);
});

test("the services tabs default to Software Development and switch by click", async ({ page }) => {
  await page.goto("/");
  const tabs = page.getByRole("tablist", { name: "Our services" });
  await expect(tabs.getByRole("tab")).toHaveText(["Software Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"]);
  await expect(tabs.getByRole("tab", { name: "Software Development" })).toHaveAttribute("aria-selected", "true");
  const panel = page.getByRole("tabpanel");
  await expect(panel.getByRole("listitem")).toHaveCount(6);

  await tabs.getByRole("tab", { name: "AI Solutions" }).click();
  await expect(tabs.getByRole("tab", { name: "AI Solutions" })).toHaveAttribute("aria-selected", "true");
  await expect(tabs.getByRole("tab", { name: "Software Development" })).toHaveAttribute("aria-selected", "false");
  await expect(page.getByRole("tabpanel")).toHaveAccessibleName("AI Solutions");
  await expect(page.getByRole("tabpanel").getByRole("listitem")).toHaveCount(6);
  await expect(page).toHaveURL(/service=ai/);
  await expect(page.getByRole("tabpanel").getByRole("link", { name: /Learn more/i })).toHaveAttribute("href", /\/services#/);
});

// Arrow-key roving needs JavaScript; without it each tab is a plain link (tested above).
test("arrow keys move between the services tabs", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "Software Development" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: "Software Development" })).toBeFocused();
});

test("Learn More lands on the matching section of /services", async ({ page }) => {
  await page.goto("/?service=seo");
  await page
    .getByRole("tabpanel")
    .getByRole("link", { name: /Learn more/i })
    .click();
  await expect(page).toHaveURL(/\/services#/);
  const id = new URL(page.url()).hash.slice(1);
  await expect(page.locator(`[id="${id}"]`).getByRole("heading", { level: 2 })).toHaveText("SEO & Digital Marketing");
  await expect(page.locator(`[id="${id}"]`)).toBeInViewport();
});

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

test("/work filters projects by category through the URL, default All", async ({ page }) => {
  await page.goto("/work");
  const filter = page.getByRole("navigation", { name: "Filter projects by category" });
  await expect(filter.getByRole("link")).toHaveText(["All", "Software Development", "Mobile Development", "AI Solutions"]);
  await expect(filter.getByRole("link", { name: "All" })).toHaveAttribute("aria-current", "true");
  const cards = page.locator("article.project-card");
  const all = await cards.count();
  expect(all).toBeGreaterThanOrEqual(6);

  await filter.getByRole("link", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/\/work\?category=ai$/);
  await expect(filter.getByRole("link", { name: "AI Solutions" })).toHaveAttribute("aria-current", "true");
  await expect(cards.first()).toContainText("AI Solutions");
  const ai = await cards.count();
  expect(ai).toBeGreaterThan(0);
  expect(ai).toBeLessThan(all);
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("AI Solutions");

  await filter.getByRole("link", { name: "All" }).click();
  await expect(page).toHaveURL(/\/work$/);
  await expect(cards).toHaveCount(all);
});

test("a shared /work?category= link opens filtered, and project cards carry their links", { tag: "@once" }, async ({ page }) => {
  await page.goto("/work?category=mobile");
  const cards = page.locator("article.project-card");
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("Mobile Development");
  await page.goto("/work");
  const withRepo = page.getByRole("link", { name: /^Code repository of / });
  expect(await withRepo.count()).toBeGreaterThan(0);
  expect(await withRepo.count()).toBeLessThan(await cards.count());
  expect(await page.getByRole("link", { name: /^Live site of / }).count()).toBe(await cards.count());
});

test.describe("on a touch phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("project details are always visible", { tag: "@once" }, async ({ page }) => {
    await page.goto("/work");
    await expect(page.locator("article.project-card .project-details").first()).toBeVisible();
    await expect(page.getByRole("link", { name: /^Live site of / }).first()).toBeVisible();
  });
});

test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the menu toggle opens and closes the links", async ({ page }) => {
    await page.goto("/about");
    const nav = page.getByRole("navigation", { name: "Main" });
    const toggle = page.locator(".nav-menu > summary");
    await expect(toggle).toBeVisible();
    await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
    await toggle.click();
    await expect(nav.getByRole("link", { name: "Services" })).toBeVisible();
    await toggle.click();
    await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
    await toggle.click();
    await nav.getByRole("link", { name: "Services" }).click();
    await expect(page).toHaveURL(/\/services$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("What we build for you");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Services" })).toBeHidden();
  });

  // Escape-to-close is a JavaScript enhancement.
  test("Escape closes the menu", { tag: "@needs-js" }, async ({ page }) => {
    await page.goto("/");
    await page.locator(".nav-menu > summary").click();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" })).toBeHidden();
    await expect(page.locator(".nav-menu > summary")).toBeFocused();
  });

  test("no page scrolls sideways", { tag: "@once" }, async ({ page }) => {
    for (const path of ["/", "/services", "/work", "/about", "/privacy"]) {
      await page.goto(path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
  });
});

test("the desktop nav shows its links without a menu toggle", { tag: "@once" }, async ({ page }) => {
  await page.goto("/");
  await expect(page.locator(".nav-menu > summary")).toBeHidden();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" })).toBeVisible();
});

test("Contact Us from /about lands on the home page's contact section", async ({ page }) => {
  await page.goto("/about");
  const contact = page.getByRole("link", { name: "Contact Us" });
  await expect(contact).toHaveAttribute("href", "/#contact");
  await contact.click();
  await expect(page).toHaveURL(/\/(#contact)?$/);
  await expect(page.locator("#contact")).toBeInViewport();
});

test("Contact Us on the home page scrolls to the contact section", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("link", { name: "Contact Us" }).click();
  await expect(page.locator("#contact")).toBeInViewport();
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

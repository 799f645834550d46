/** The home page beyond its calculator and contact form (specs of their own), with JavaScript on and off. */
import { expect, hydrated, test } from "./support/fixtures";
import { featuredProjects } from "../app/content/projects";
import { site } from "../app/content/site";
import { testimonials } from "../app/content/testimonials";

test("at 320, 390 and 1280 px: testimonials, featured work, the hero's visual only with room", { tag: "@once" }, async ({ page }) => {
  const fetched: string[] = [];
  page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    fetched.length = 0;
    await page.goto("/");
    const said = page.getByRole("region", { name: "What our clients say" });
    await expect(said.getByRole("img", { name: "Rated 5 out of 5" })).toHaveCount(testimonials.length);
    await expect(said.locator("blockquote")).toHaveCount(testimonials.length);
    const work = page.getByRole("region", { name: "Systems our clients use every day" });
    await expect(work.locator("article.project-card")).toHaveCount(featuredProjects.length);
    await expect(work.getByRole("link", { name: "See All Our Work" })).toHaveAttribute("href", "/work");

    const visual = page.locator(".hero-visual");
    await expect(visual).toHaveAttribute("width", "480");
    await expect(visual).toHaveAttribute("height", "400");
    if (width >= 1024) {
      await expect(visual).toBeVisible();
      await expect(visual).toHaveAttribute("alt", /estimate/);
      const [text, image] = [await page.locator("#hero-title").boundingBox(), await visual.boundingBox()];
      expect(image!.x).toBeGreaterThan(text!.x + text!.width - 1); // the right half
      await expect.poll(() => visual.evaluate((img: HTMLImageElement) => img.currentSrc)).toMatch(/\/images\/hero-estimate\.svg$/);
      await expect.poll(() => visual.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
    } else {
      await expect(visual).toBeHidden();
      // Hidden, and its source does not match: a phone never downloads it.
      await page.waitForLoadState("load");
      expect(fetched, `${width} px`).not.toContain("/images/hero-estimate.svg");
    }
  }
});

// The page's CSP and a browser's violations on it are caching.spec's (through a proxy, the same bytes).
test("the hero, the services tabs and Learn More, and the agency in JSON-LD", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.goto("/");
  const hero = page.locator(".hero");
  for (const text of ["10+", "Projects completed", "80%", "Client satisfaction", "2+", "Years experience"]) await expect(hero).toContainText(text);
  await expect(hero.getByRole("link", { name: "Get Started" })).toHaveAttribute("href", /#wizard$/);

  const blocks = page.locator('script[type="application/ld+json"]');
  await expect(blocks).toHaveCount(1);
  const data = JSON.parse((await blocks.textContent())!) as Record<string, unknown>;
  expect(data).toMatchObject({
    "@context": "https://schema.org",
    "@type": "ProfessionalService",
    name: site.name,
    url: `${site.url}/`,
    email: site.email,
    // The number the tel: links dial, in international form.
    telephone: site.phoneHref.slice("tel:".length),
    address: { "@type": "PostalAddress", addressLocality: site.address.city, addressCountry: site.address.countryCode },
    sameAs: [site.social.url],
  });
  expect(data.logo).toMatch(/^https:\/\/.+\.png$/);
  expect((data.areaServed as { name: string }[]).map((a) => a.name)).toContain(site.address.city);
  // The logo it names is served.
  expect((await page.request.get(new URL(data.logo as string).pathname)).status()).toBe(200);
  await page.waitForLoadState("load");
  expect(problems).toEqual([]);

  const tabs = page.getByRole("tablist", { name: "Our services" });
  await expect(tabs.getByRole("tab")).toHaveText(["Software Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"]);
  await expect(tabs.getByRole("tab", { name: "Software Development" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel").getByRole("listitem")).toHaveCount(6);
  await tabs.getByRole("tab", { name: "SEO & Digital Marketing" }).click();
  await expect(tabs.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(tabs.getByRole("tab", { name: "Software Development" })).toHaveAttribute("aria-selected", "false");
  await expect(page.getByRole("tabpanel")).toHaveAccessibleName("SEO & Digital Marketing");
  await expect(page.getByRole("tabpanel").getByRole("listitem")).toHaveCount(6);
  await expect(page).toHaveURL(/service=seo/);
  await page
    .getByRole("tabpanel")
    .getByRole("link", { name: /Learn more/i })
    .click();
  await expect(page).toHaveURL(/\/services#/);
  const id = new URL(page.url()).hash.slice(1);
  await expect(page.locator(`[id="${id}"]`).getByRole("heading", { level: 2 })).toHaveText("SEO & Digital Marketing");
  await expect(page.locator(`[id="${id}"]`)).toBeInViewport();
  // Only the home page carries the JSON-LD.
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0);

  await page.goBack();
  await page.locator(".hero").getByRole("link", { name: "View Our Work" }).click();
  await expect(page).toHaveURL(/\/work$/);
});

// Arrow-key roving and focus kept on the tab need JavaScript; without it each tab is a plain link (tested above).
test("with JavaScript, a clicked services tab keeps focus, and arrow keys move between the tabs", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "Zoho Solutions" }).click();
  await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toBeFocused();
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: "Software Development" })).toBeFocused();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: "Software Development" })).toBeFocused();
});

// Measured with the browser's layout-shift entries, which need script access.
test("the home page does not shift as it loads, the hero's visual included (1280 px)", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  await page.waitForLoadState("load");
  // Once all that could move it has happened (loaded, the hero's image decoded, hydrated, the
  // fonts in), two frames later every shift they caused is among the entries.
  await expect.poll(() => page.locator(".hero-visual").evaluate((img: HTMLImageElement) => img.complete)).toBe(true);
  await hydrated(page);
  const shift = await page.evaluate(async () => {
    await document.fonts.ready;
    let total = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!e.hadRecentInput) total += e.value;
    }).observe({ type: "layout-shift", buffered: true });
    await new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)));
    return total;
  });
  expect(shift).toBe(0);
});

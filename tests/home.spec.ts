/** The home page beyond its calculator and contact form (specs of their own), with JavaScript on and off. */
import { expect, hydrated, test } from "./support/fixtures";
import { calculator, priceOf, progress } from "./support/wizard";
import { site } from "../app/content/site";

// The page's CSP and a browser's violations on it are caching.spec's (through a proxy, the same bytes).
test("the hero, the services tabs, Learn More and Estimate this, and the agency in JSON-LD", async ({ page, javaScriptEnabled }) => {
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
  const panel = page.getByRole("tabpanel");
  await panel.getByRole("link", { name: /Learn more/i }).click();
  await expect(page).toHaveURL(/\/services#/);
  const id = new URL(page.url()).hash.slice(1);
  await expect(page.locator(`[id="${id}"]`).getByRole("heading", { level: 2 })).toHaveText("SEO & Digital Marketing");
  await expect(page.locator(`[id="${id}"]`)).toBeInViewport();
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0);

  // Back at the SEO tab, its Estimate this opens step 2 with it chosen, ticked, the tab kept.
  await page.goBack();
  await page.getByRole("button", { name: "Estimate this for SEO & Digital Marketing" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  if (javaScriptEnabled) await expect(tabs.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(calculator(page).locator(".estimate")).toContainText(priceOf({ service: "SEO & Digital Marketing" }));
  await calculator(page).getByRole("button", { name: "Back" }).click();
  const seo = calculator(page).getByRole("button", { name: "SEO & Digital Marketing" });
  await expect(seo).toHaveAttribute("aria-current", "true");
  // Marked by more than colour: a tick, which a submit input can only have as a picture.
  await expect(seo).toHaveCSS("background-image", /^url\("data:image\/svg\+xml/);
  await expect(calculator(page).getByRole("button", { name: "AI Solutions", exact: true })).toHaveCSS("background-image", "none");
  await page.locator(".hero").getByRole("link", { name: "View Our Work" }).click();
  await expect(page).toHaveURL(/\/work$/);
});

// Arrow-key roving and focus kept on the tab need JavaScript; without it each tab is a plain link (tested above).
test("with JavaScript, a clicked tab keeps focus, arrow keys move between tabs, a tab change is no history entry", { tag: "@needs-js" }, async ({ page }) => {
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

  // The tab keeps its place through the wizard's steps, and changing it adds no history entry.
  await page.getByRole("tab", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/\/\?service=ai$/);
  await calculator(page).getByRole("button", { name: "Zoho Solutions", exact: true }).click();
  await expect(page).toHaveURL(/\/\?service=ai&step=2#wizard$/);
  await expect(page.getByRole("tab", { name: "AI Solutions" })).toHaveAttribute("aria-selected", "true");
  await page.getByRole("tab", { name: "SEO & Digital Marketing" }).click();
  await expect(page).toHaveURL(/\/\?service=seo&step=2$/);
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await calculator(page).getByRole("button", { name: "Standard (3-4 weeks)" }).click();
  await expect(page).toHaveURL(/\/\?service=seo&step=3#wizard$/);
  await page.goBack();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await page.goBack();
  await expect(page).toHaveURL(/\/\?service=ai$/);
  await expect(progress(page)).toHaveText("Step 1 of 5");
});

// Measured with the browser's layout-shift entries, which need script access.
test("the home page does not shift as it loads, the hero's visual included (1280 px)", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  await page.waitForLoadState("load");
  // Loaded, the hero's image decoded, hydrated, the fonts in: two frames later every shift is among the entries.
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

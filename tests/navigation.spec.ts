/**
 * The header and its menu at phone and desktop widths, with JavaScript on and off. With JavaScript
 * a page change moves focus to its target; without it the browser follows a link's fragment itself.
 */
import { expect, test } from "./support/fixtures";

test("every link reachable at 320, 390 and 1280 px, a toggle only where links fold away; Contact Us reaches #contact", async ({ page, javaScriptEnabled }) => {
  const nav = page.getByRole("navigation", { name: "Main" });
  const toggle = page.locator(".nav-menu > summary");
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/");
    const brand = (await page.locator(".site-header .brand").boundingBox())!;
    const lineHeight = await page.locator(".site-header .brand").evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect(brand.height, `${width} px`).toBeLessThanOrEqual(Math.max(32, lineHeight) + 1);
    expect((await page.locator(".site-header").boundingBox())!.height, `${width} px`).toBeLessThanOrEqual(65);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${width} px`).toBeLessThanOrEqual(0);
    // The links are not inside the <details>: a closed one hides its content in every browser
    // without ::details-content (Chrome < 131, Firefox < 143, Safari < 18.4).
    await expect(page.locator("details nav, details a")).toHaveCount(0);
    if (width >= 768) {
      await expect(toggle).toBeHidden();
      // Opaque: no grey band where it passes over the dark hero (a translucent white let the indigo through).
      await page.evaluate(() => window.scrollTo(0, 200));
      await expect(page.locator(".site-header")).toHaveCSS("background-color", "rgb(255, 255, 255)");
    } else {
      const box = (await toggle.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(brand.x + brand.width);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
      await toggle.click();
      await expect(nav.getByRole("link", { name: "Services" })).toBeVisible();
      await toggle.click();
      await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
      if (javaScriptEnabled) {
        await toggle.click();
        await expect(nav.getByRole("link", { name: "About" })).toBeVisible();
        await page.keyboard.press("Escape");
        await expect(nav.getByRole("link", { name: "About" })).toBeHidden();
        await expect(toggle).toBeFocused();
      }
      await toggle.click();
    }
    for (const name of ["Home", "Services", "Our Work", "About"]) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Contact Us" })).toBeVisible();
    await nav.getByRole("link", { name: "Our Work" }).click();
    await expect(page).toHaveURL(/\/work$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Projects we are proud of");
    if (width < 768) await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
    if (javaScriptEnabled) {
      // A client-side page change moves focus to the new page's h1, which names it; Back too.
      await expect(page.locator("main h1")).toBeFocused();
      await page.goBack();
      await expect(page.locator("main h1")).toBeFocused();
      await expect(page.locator("main h1")).toHaveAccessibleName(/.+/);
    }
  }
  for (const path of ["/", "/about"]) {
    await page.goto(path);
    await expect(page.getByRole("link", { name: "Contact Us" })).toHaveAttribute("href", "/#contact");
    await page.getByRole("link", { name: "Contact Us" }).click();
    await expect(page).toHaveURL(/\/(#contact)?$/);
    await expect(page.locator("#contact")).toBeInViewport();
  }
});

test("a link into a page lands below the fixed header, focus on its heading with JavaScript", async ({ page, javaScriptEnabled }) => {
  const header = page.locator(".site-header");
  /** The section's heading in view, the section below the header; `focused`: with JavaScript, focus on that heading. */
  const below = async (slug: string, name: string, focused = javaScriptEnabled) => {
    const heading = page.getByRole("heading", { level: 2, name });
    await expect(heading).toBeInViewport();
    const bar = (await header.boundingBox())!;
    await expect.poll(async () => (await page.locator(`#${slug}`).boundingBox())!.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    if (focused) await expect(heading).toBeFocused();
  };
  await page.goto("/services#ai-solutions");
  await below("ai-solutions", "AI Solutions", false); // the first render: the browser decides
  await page.goto("/");
  await page.getByRole("contentinfo").getByRole("link", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/\/services#ai-solutions$/);
  await below("ai-solutions", "AI Solutions");
  // The same on /services itself: an in-page jump.
  await page.getByRole("contentinfo").getByRole("link", { name: "Zoho Solutions" }).click();
  await below("zoho-solutions", "Zoho Solutions");
});

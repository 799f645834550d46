/**
 * The site's header and its menu, with JavaScript on and off: every link reachable at 320, 390
 * and 1280 px and the toggle only where the links fold away (it opens and closes; with JavaScript,
 * Escape closes it), the brand and toggle on one line, Contact Us reaching the contact form from
 * any page, a link into a page landing below the fixed header, and a header opaque over the hero.
 */
import { expect, test } from "./support/fixtures";

const WIDTHS = [320, 390, 1280];

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("the navigation works: every link reachable, the toggle only where the links fold away", async ({ page }) => {
      await page.goto("/about");
      const nav = page.getByRole("navigation", { name: "Main" });
      const toggle = page.locator(".nav-menu > summary");
      // The links are not inside the <details>: a closed one hides its content in every browser
      // without ::details-content (Chrome < 131, Firefox < 143, Safari < 18.4).
      await expect(page.locator("details nav, details a")).toHaveCount(0);
      if (width >= 768) {
        await expect(toggle).toBeHidden();
      } else {
        await expect(toggle).toBeVisible();
        await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
        await toggle.click();
      }
      for (const name of ["Home", "Services", "Our Work", "About"]) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
      await expect(nav.getByRole("link", { name: "Contact Us" })).toBeVisible();
      await nav.getByRole("link", { name: "Our Work" }).click();
      await expect(page).toHaveURL(/\/work$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Projects we are proud of");
    });

    test("the brand and the menu toggle fit on one line, inside the screen", { tag: "@once" }, async ({ page }) => {
      await page.goto("/");
      const brand = await page.locator(".site-header .brand").boundingBox();
      const header = await page.locator(".site-header").boundingBox();
      const lineHeight = await page.locator(".site-header .brand").evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
      expect(brand!.height).toBeLessThanOrEqual(Math.max(32, lineHeight) + 1);
      expect(header!.height).toBeLessThanOrEqual(65);
      const toggle = page.locator(".nav-menu > summary");
      if (width < 768) {
        const box = (await toggle.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(brand!.x + brand!.width);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });
  });
}

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

test("a link into the page lands below the fixed header (1280 px)", async ({ page }) => {
  await page.goto("/services#ai-solutions");
  const heading = page.getByRole("heading", { level: 2, name: "AI Solutions" });
  await expect(heading).toBeInViewport();
  const header = (await page.locator(".site-header").boundingBox())!;
  await expect.poll(async () => (await page.locator("#ai-solutions").boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height - 1);
});

test("the header is opaque: no grey band where it passes over the dark hero", { tag: "@once" }, async ({ page }) => {
  await page.goto("/");
  await page.evaluate(() => window.scrollTo(0, 200)); // the hero now runs under the header
  // Fully opaque white (a translucent white let the indigo through: the grey band).
  await expect(page.locator(".site-header")).toHaveCSS("background-color", "rgb(255, 255, 255)");
});

/**
 * The print and dark styles, CSS alone (the same with JavaScript on or off: once): printed, a page
 * has no navigation, buttons or form and is black on white, and the estimate prints; in the dark
 * scheme every page has dark surfaces and light text and axe finds nothing serious. With
 * SCREENSHOTS=1, screenshots of both go to the test's output folder (test-results/) to be looked at.
 */
import { expect, forTheEye, test } from "./support/fixtures";
import { seriousViolations } from "./support/axe";
import { priceOf } from "./support/wizard";

const PAGES = ["/", "/services", "/work", "/about", "/privacy"];
const WIDTHS = [320, 390, 1280];

// CSS alone: the same with JavaScript on or off.
test.describe("print and dark styles", { tag: "@once" }, () => {
  for (const width of WIDTHS) {
    test(`print: no navigation, no buttons, black on white; the estimate prints (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/");
      const wizard = page.locator("#calculator");
      await wizard.getByRole("button", { name: "Zoho Solutions" }).click();
      await wizard.getByRole("button", { name: "Urgent (1-2 weeks)" }).click();
      await page.emulateMedia({ media: "print" });
      await expect(page.locator(".site-header")).toBeHidden();
      await expect(page.getByRole("contentinfo").getByRole("navigation")).toBeHidden();
      await expect(page.locator("#contact form")).toBeHidden();
      await expect(wizard.getByRole("button", { name: "Back" })).toBeHidden();
      await expect(wizard.locator(".estimate")).toBeVisible();
      await expect(wizard.locator(".estimate")).toContainText(priceOf({ service: "Zoho Solutions", timeframe: "Urgent (1-2 weeks)" }));
      expect(await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual([
        "rgb(255, 255, 255)",
        "rgb(0, 0, 0)",
      ]);
      expect(await page.locator(".hero h1").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(0, 0, 0)");
      await forTheEye(page, `print-home-${width}`, { fullPage: true });
      await page.goto("/work");
      await expect(page.locator(".filter")).toBeHidden();
      await expect(page.locator("article.project-card").first()).toBeVisible();
      // A card's details, revealed on hover on a screen, print always.
      expect(
        await page
          .locator(".project-details")
          .first()
          .evaluate((el) => getComputedStyle(el).opacity),
      ).toBe("1");
      await forTheEye(page, `print-work-${width}`, { fullPage: true });
    });

    // Every page at the widest layout, the home page at every width (the colours do not change
    // with the width; the layouts do): the scheme's surfaces and text, and at 320 px axe
    // (accessibility.spec.ts checks every page dark at 390 and 1280 px, more strictly).
    for (const path of width === 1280 ? PAGES : ["/"]) {
      const axe = width === 320 ? ", and axe finds nothing serious" : "";
      test(`dark scheme: ${path} has dark surfaces and light text${axe} (${width} px)`, async ({ page, browser }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: "dark" });
        await page.goto(path);
        const [bg, ink] = await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
        expect(bg).toBe("rgb(18, 17, 42)");
        expect(ink).toBe("rgb(236, 235, 255)");
        if (axe) expect(await seriousViolations(page, browser, true)).toEqual([]);
      });
    }

    test(`every page in the dark scheme (${width} px)`, { tag: "@for-the-eye" }, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: "dark" });
      for (const path of PAGES) {
        await page.goto(path);
        await forTheEye(page, `dark${path === "/" ? "-home" : path.replace("/", "-")}-${width}`, { fullPage: true });
      }
    });
  }
});

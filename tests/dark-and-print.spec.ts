/**
 * The print and dark styles, CSS alone (the same with JavaScript on or off: once): printed, a page
 * has no navigation, buttons or form and is black on white, and the estimate prints; in the dark
 * scheme a small phone gets dark surfaces and light text and axe finds nothing (every page dark at
 * 390 and 1280 px is accessibility.spec.ts's). With SCREENSHOTS=1, screenshots of both go to the
 * test's output folder (test-results/) to be looked at.
 */
import { expect, forTheEye, test } from "./support/fixtures";
import { wcagViolations } from "./support/axe";
import { priceOf } from "./support/wizard";

const PAGES = ["/", "/services", "/work", "/about", "/privacy"];
const WIDTHS = [320, 390, 1280];

test.describe("print and dark styles", { tag: "@once" }, () => {
  test("print at 320, 390 and 1280 px: no navigation, no buttons, black on white; the estimate prints, and a card's details", async ({ page }) => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ media: null });
      // A new wizard each time: the last one's answers stay in the tab.
      await page.evaluate(() => sessionStorage.clear()).catch(() => undefined);
      await page.goto("/");
      const wizard = page.locator("#calculator");
      await wizard.getByRole("button", { name: "Zoho Solutions" }).click();
      await wizard.getByRole("button", { name: "Urgent (1-2 weeks)" }).click();
      await page.emulateMedia({ media: "print" });
      await expect(page.locator(".site-header")).toBeHidden();
      await expect(page.getByRole("contentinfo").getByRole("navigation")).toBeHidden();
      await expect(page.locator("#contact form")).toBeHidden();
      await expect(wizard.getByRole("button", { name: "Back" })).toBeHidden();
      await expect(wizard.locator(".estimate")).toContainText(priceOf({ service: "Zoho Solutions", timeframe: "Urgent (1-2 weeks)" }));
      const colours = (selector: string) => page.locator(selector).evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
      expect(await colours("body"), `${width} px`).toEqual(["rgb(255, 255, 255)", "rgb(0, 0, 0)"]);
      expect((await colours(".hero h1"))[1], `${width} px`).toBe("rgb(0, 0, 0)");
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
    }
  });

  test("dark scheme at 320 px: / has dark surfaces and light text, and axe finds nothing", async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 900 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/");
    expect(await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual([
      "rgb(18, 17, 42)",
      "rgb(236, 235, 255)",
    ]);
    expect(await wcagViolations(page)).toEqual([]);
  });

  for (const width of WIDTHS) {
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

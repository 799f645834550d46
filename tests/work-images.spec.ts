/**
 * Portfolio pictures are there when a card comes into view, or is printed, not blank boxes that
 * fill in after a scroll: every project's picture has loaded with the page at a phone's and a
 * desktop's width, on /work and on the home page, without scrolling.
 */
import { expect, forTheEye, test } from "./support/fixtures";
import { projects } from "../app/content/work";

for (const width of [390, 1280]) {
  test(`at ${width} px every project's picture loads with /work and the home page, before any scroll`, async ({ page }) => {
    await page.setViewportSize({ width, height: 844 });
    for (const path of ["/work", "/"]) {
      await page.goto(path);
      await page.waitForLoadState("load");
      const pictures = page.locator("article.project-card img");
      expect(await pictures.count()).toBeGreaterThan(0);
      if (path === "/work") await expect(pictures).toHaveCount(projects.length);
      // Loaded: decoded with its own size, where a lazy picture below the fold has none.
      await expect
        .poll(() =>
          pictures.evaluateAll((imgs) =>
            imgs.filter((img) => !((img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).map((img) => img.getAttribute("src")),
          ),
        )
        .toEqual([]);
      expect(await page.evaluate(() => scrollY)).toBe(0);
    }
    await page.goto("/work");
    await page.emulateMedia({ media: "print" });
    await forTheEye(page, `work-print-${width}`, { fullPage: true });
  });
}

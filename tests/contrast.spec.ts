/**
 * Contrast the eye can rely on, measured in the browser against every colour a text or a ring is
 * drawn on (gradients included): eyebrow labels reach 4.5:1 on every page, and every focus
 * indicator on every page reaches 3:1 in the light and the dark scheme. CSS alone: once.
 */
import { expect, test } from "./support/fixtures";
import { focusRingContrasts, textContrasts } from "./support/contrast";

const PAGES = ["/", "/services", "/work", "/about", "/privacy"];

test("eyebrow labels reach 4.5:1 against every colour of their background, page headers' gradients included", { tag: "@once" }, async ({ page }) => {
  const low: string[] = [];
  for (const path of PAGES) {
    await page.goto(path);
    const measured = await textContrasts(page, ".eyebrow, .project-category, .member-role, .wizard-progress p");
    expect(measured.length, path).toBeGreaterThan(0);
    for (const m of measured) if (m.ratio < 4.5) low.push(`${path} ${m.what}: ${m.color} on ${m.against.join(", ")} = ${m.ratio.toFixed(2)}`);
  }
  expect(low).toEqual([]);
});

for (const scheme of ["light", "dark"] as const) {
  for (const path of PAGES) {
    test(`every focus indicator on ${path} reaches 3:1 against the background it is drawn on (${scheme} scheme)`, { tag: "@once" }, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(path);
      const { rings, missing } = await focusRingContrasts(page);
      expect(rings.length).toBeGreaterThan(10);
      expect(missing, "focusable without a visible indicator").toEqual([]);
      expect(rings.filter((m) => m.ratio < 3).map((m) => `${m.what}: ${m.color} on ${m.against.join(", ")} = ${m.ratio.toFixed(2)}`)).toEqual([]);
    });
  }
}

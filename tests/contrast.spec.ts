/**
 * Contrast the eye can rely on, measured in the browser against every colour a text or a ring is
 * drawn on (gradients included): on every page eyebrow labels reach 4.5:1, and every focus
 * indicator reaches 3:1 in the light and the dark scheme, where every portrait's disc is
 * outlined at 3:1 against its card. CSS alone: once, each page loaded once (the scheme is
 * switched on it).
 */
import { expect, test } from "./support/fixtures";
import { contrasts, focusRingContrasts, transitionsEnded } from "./support/contrast";

for (const path of ["/", "/services", "/work", "/about", "/privacy"]) {
  test(`on ${path} eyebrows reach 4.5:1, focus rings and portraits' rings 3:1, light and dark`, { tag: "@once" }, async ({ page }) => {
    await page.goto(path);
    const eyebrows = await contrasts(page, ".eyebrow, .project-category, .member-role, .wizard-progress p", "text");
    expect(eyebrows.length).toBeGreaterThan(0);
    const low = eyebrows.filter((m) => m.ratio < 4.5).map((m) => m.said);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await transitionsEnded(page);
      const { rings, missing } = await focusRingContrasts(page);
      expect(rings.length, scheme).toBeGreaterThan(10);
      expect(missing, `${scheme}: focusable without a visible indicator`).toEqual([]);
      low.push(...rings.filter((m) => m.ratio < 3).map((m) => `${scheme} ring ${m.said}`));
    }
    // The portraits' navy discs would vanish into the dark scheme's navy cards without their ring.
    const portraits = await contrasts(page, ".person img, .member img", "outline");
    if (path === "/" || path === "/about") expect(portraits.length).toBeGreaterThan(0);
    low.push(...portraits.filter((m) => !m.drawn || m.ratio < 3).map((m) => `dark portrait ${m.said}`));
    expect(low).toEqual([]);
  });
}

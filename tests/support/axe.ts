import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** axe's tags for the rules of WCAG 2.2 level A and AA (2.0, 2.1 and 2.2's own). */
const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * Every violation of a WCAG 2.2 A or AA rule, and the serious and critical ones of axe's
 * best-practice rules, each as "rule: its elements": all of weight that axe's default rules find.
 */
export async function wcagViolations(page: Page) {
  // Legacy mode (axe.run in the page) saves about 30 % of the WCAG spec's CPU (perf/test-suite.md);
  // it is blind to cross-origin frames, and the site has none: asserted, for an embed added later.
  expect(page.frames(), "no frame in the page: axe runs in legacy mode, blind to cross-origin ones").toHaveLength(1);
  // Experimental rules of these tags count; axe is injected once a page, and passes are never read.
  const there = await page.evaluate(() => "axe" in window);
  const results = await new AxeBuilder({ page, ...(there ? { axeSource: ";" } : {}) })
    .setLegacyMode()
    .options({ resultTypes: ["violations"] })
    .withTags([...WCAG_22_AA, "best-practice", "experimental"])
    .analyze();
  return results.violations
    .filter((v) => v.tags.some((t) => WCAG_22_AA.includes(t)) || (v.tags.includes("best-practice") && (v.impact === "serious" || v.impact === "critical")))
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

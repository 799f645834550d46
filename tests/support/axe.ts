import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** axe's tags for the rules of WCAG 2.2 level A and AA (2.0, 2.1 and 2.2's own). */
const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * Every violation of a WCAG 2.2 A or AA rule, whatever its impact, and the serious and critical
 * ones of axe's best-practice rules, each as "rule: its elements": all that axe's default rules
 * (those two kinds; the rest are AAA or deprecated) find of any weight. axe needs script in the
 * page: for what a browser without JavaScript sees, the page's own scripts are blocked instead
 * (accessibility.spec.ts).
 */
export async function wcagViolations(page: Page) {
  // axe.run in the page itself (legacy mode). The default runs each frame apart and then merges
  // their results in a blank page of its own, with axe injected a second time: about 30 % of the
  // WCAG spec's CPU (perf/test-suite.md). What legacy mode gives up is cross-origin frames, and
  // the site has no frame: asserted, so that an embed added later is not left unchecked.
  expect(page.frames(), "no frame in the page: axe runs in legacy mode, blind to cross-origin ones").toHaveLength(1);
  // axe leaves its experimental rules out unless their tag is asked for; those of these tags count.
  // axe is put in the page once: a page checked again (another width, the other scheme) runs the
  // copy already there, and only violations are gathered in full (passes are never read).
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

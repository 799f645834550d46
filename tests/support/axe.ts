import AxeBuilder from "@axe-core/playwright";
import { expect, type Browser, type Page } from "@playwright/test";

/** axe's tags for the rules of WCAG 2.2 level A and AA (2.0, 2.1 and 2.2's own). */
const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * axe's violations on the page as this project's visitor sees it. axe needs script access, so for
 * the JavaScript-off project it runs in a scripting context whose app scripts are blocked: the
 * same server-rendered DOM, never hydrated, with the page's cookies (a step page or a form with
 * mistakes is its maker's alone) and colour scheme.
 */
async function violations(page: Page, browser: Browser, javaScriptEnabled: boolean, tags?: string[]) {
  let target = page;
  if (!javaScriptEnabled) {
    const colorScheme = await page.evaluate(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
    const context = await browser.newContext({
      javaScriptEnabled: true,
      viewport: page.viewportSize(),
      colorScheme,
      storageState: await page.context().storageState(),
    });
    target = await context.newPage();
    // Only the scripts: the styles are the page's too (blocking all of /build/ left it unstyled).
    await target.route("**/build/**/*.js", (route) => route.abort());
    await target.goto(page.url());
  }
  // axe.run in the page itself (legacy mode). The default runs each frame apart and then merges
  // their results in a blank page of its own, with axe injected a second time: about 30 % of the
  // WCAG spec's CPU (perf/test-suite.md). What legacy mode gives up is cross-origin frames, and
  // the site has no frame: asserted, so that an embed added later is not left unchecked.
  expect(target.frames(), "no frame in the page: axe runs in legacy mode, blind to cross-origin ones").toHaveLength(1);
  const builder = new AxeBuilder({ page: target }).setLegacyMode();
  // axe leaves its experimental rules out unless their tag is asked for; those of these tags count.
  const results = await (tags ? builder.withTags([...tags, "experimental"]) : builder).analyze();
  if (target !== page) await target.context().close();
  return results.violations
    .filter((v) => !tags || v.tags.some((t) => tags.includes(t)))
    .map((v) => ({ ...v, summary: `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}` }));
}

/** Serious and critical axe violations, each as "rule: its elements". */
export async function seriousViolations(page: Page, browser: Browser, javaScriptEnabled: boolean) {
  return (await violations(page, browser, javaScriptEnabled)).filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.summary);
}

/**
 * Every violation of a WCAG 2.2 A or AA rule, whatever its impact, and the serious and critical
 * ones of axe's best-practice rules, each as "rule: its elements". axe's default rules are those
 * two kinds (the rest are AAA or deprecated, and off by default), so this finds all that
 * `seriousViolations` finds on the same page, and more.
 */
export async function wcagViolations(page: Page, browser: Browser, javaScriptEnabled: boolean) {
  return (await violations(page, browser, javaScriptEnabled, [...WCAG_22_AA, "best-practice"]))
    .filter((v) => v.tags.some((t) => WCAG_22_AA.includes(t)) || v.impact === "serious" || v.impact === "critical")
    .map((v) => v.summary);
}

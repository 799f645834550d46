import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";

/**
 * Serious and critical axe violations on the page as this project's visitor sees it. axe needs
 * script access, so for the JavaScript-off project it runs in a scripting context whose app
 * bundles are blocked: the same server-rendered DOM, never hydrated.
 */
export async function seriousViolations(page: Page, browser: Browser, javaScriptEnabled: boolean) {
  let target = page;
  if (!javaScriptEnabled) {
    const context = await browser.newContext({ javaScriptEnabled: true, viewport: page.viewportSize() });
    target = await context.newPage();
    await target.route("**/build/**", (route) => route.abort());
    await target.goto(page.url());
  }
  const results = await new AxeBuilder({ page: target }).analyze();
  if (target !== page) await target.context().close();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * WCAG 2.2 AA, with JavaScript on and off: on every page at a phone's and a desktop's width, in the
 * light and the dark scheme, no violation of any impact of axe's WCAG 2.2 A and AA rules, none
 * serious of its best-practice rules, and no footer or standalone link under 24 × 24 px (measured
 * here). The pages include step 5 and those that exist only without JavaScript (a calculator step,
 * the contact form with mistakes). The older checks of serious violations alone on the same pages
 * (pages.spec, privacy.spec, dark-and-print.spec at 390 and 1280 px, estimate.spec's and step 5's
 * first test) are left to this spec (perf/test-suite.md).
 *
 * axe needs script. Without JavaScript it runs in the page itself, a scripting page whose app
 * scripts are refused: the server's markup, never hydrated, as the visitor without JavaScript
 * gets it (the site has no <noscript> and no `scripting` media query, so nothing else differs).
 * The pages are opened that way too, so each is loaded once per scheme, not twice.
 */
import type { Page } from "@playwright/test";
import { expect, hydrated, test } from "./support/fixtures";
import { wcagViolations } from "./support/axe";
import { atStep5, calculator, dispatchApp } from "./support/wizard";

const WIDTHS = [390, 1280];

test.use({ javaScriptEnabled: true });
test.beforeEach(async ({ page }, testInfo) => {
  if (testInfo.project.use.javaScriptEnabled === false) await page.route("**/build/**/*.js", (route) => route.abort());
});
const SCHEMES = ["light", "dark"] as const;

/**
 * Each page by how a visitor reaches it; `withoutJs` ones only exist for a browser without it.
 * `sameMarkup` ones are the same markup with JavaScript and without it (the test checks that), and
 * the site's CSS does not ask whether scripts run: what axe and the target sizes find is then the
 * same for both visitors, so they are checked once, with JavaScript (`@once`).
 */
const PAGES: { name: string; open: (page: Page) => Promise<unknown>; withoutJs?: true; sameMarkup?: true }[] = [
  { name: "/", open: (page) => page.goto("/") },
  { name: "/services", open: (page) => page.goto("/services"), sameMarkup: true },
  { name: "/work", open: (page) => page.goto("/work"), sameMarkup: true },
  { name: "/about", open: (page) => page.goto("/about"), sameMarkup: true },
  { name: "/privacy", open: (page) => page.goto("/privacy"), sameMarkup: true },
  // estimate.spec's (its first test's serious-only axe check is this one's).
  { name: "an estimate", open: (page) => page.goto("/estimate?service=softwareDev&timeframe=urgent&complexity=complex"), sameMarkup: true },
  {
    name: "a calculator step",
    withoutJs: true,
    open: async (page) => {
      await page.goto("/#calculator");
      await calculator(page).getByRole("button", { name: "AI Solutions" }).click();
      await expect(page).toHaveURL(/\?draft=/);
      await page.waitForLoadState(); // its stylesheet too: the address changes as the page arrives
    },
  },
  { name: "the calculator's step 5", open: (page) => atStep5(page, dispatchApp) },
  {
    name: "the contact form with mistakes",
    withoutJs: true,
    open: async (page) => {
      await page.goto("/#contact");
      await page.locator("#contact").getByLabel("Email").fill("lerato@");
      await page.locator("#contact").getByRole("button", { name: "Send Message" }).click();
      await expect(page).toHaveURL(/\?contact=/);
      await page.waitForLoadState();
    },
  },
];

/**
 * WCAG 2.2's 2.5.8 (Target Size, Minimum), measured: the links smaller than 24 × 24 CSS px among
 * those in the footer and those standing alone (a link in a sentence is exempt). axe's own rule
 * lets a small target pass when nothing else is near, so it misses a list of short links.
 */
const smallLinks = (page: Page) =>
  page.locator("a[href]").evaluateAll((links) =>
    links
      .filter((a) => a.getClientRects().length > 0 && getComputedStyle(a).visibility === "visible")
      .filter((a) => {
        if (a.closest("footer")) return true;
        // In a sentence: the nearest block around the link has words of its own beside it.
        let block = a.parentElement!;
        while (getComputedStyle(block).display.startsWith("inline")) block = block.parentElement!;
        const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
        let own = "";
        for (let t = walker.nextNode(); t; t = walker.nextNode()) if (!a.contains(t)) own += t.textContent;
        return !/[\p{L}\p{N}]/u.test(own);
      })
      .map((a) => ({ a, box: a.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 24 || box.height < 24)
      .map(({ a, box }) => `"${a.textContent!.trim()}" (${a.getAttribute("href")}): ${box.width.toFixed(1)} × ${box.height.toFixed(1)}`),
  );

/**
 * What hydration changed in the page's body (scripts aside), against the server's markup for the
 * same address, which is what a browser without JavaScript shows: "" when nothing.
 */
const hydrationChanges = async (page: Page) => {
  await hydrated(page);
  return page.evaluate(async () => {
    const served = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
    const markup = (body: HTMLElement) => {
      const copy = body.cloneNode(true) as HTMLElement;
      for (const script of copy.querySelectorAll("script")) script.remove();
      return copy.innerHTML;
    };
    const [before, after] = [markup(served.body), markup(document.body)];
    if (before === after) return "";
    let at = 0;
    while (before[at] === after[at]) at++;
    return `served …${before.slice(Math.max(0, at - 80), at + 80)}…\nhydrated …${after.slice(Math.max(0, at - 80), at + 80)}…`;
  });
};

for (const { name, open, withoutJs, sameMarkup } of PAGES) {
  for (const width of WIDTHS) {
    test(
      `${name} at ${width} px: no WCAG 2.2 AA violation, light and dark, and no standalone or footer link under 24 × 24 px`,
      withoutJs ? { tag: "@without-js" } : sameMarkup ? { tag: "@once" } : {},
      async ({ page, browser }) => {
        // Two axe runs (about 1.3 CPU-seconds each) and two page loads: 36-44 s with the run's
        // workers on half a core (a machine four times slower), too near the default 60 s.
        test.slow();
        await page.setViewportSize({ width, height: 900 });
        const found: string[] = [];
        for (const colorScheme of SCHEMES) {
          // The scheme before the page: switched on a loaded page, colours pass through their
          // transitions, and axe would measure the contrast halfway.
          await page.emulateMedia({ colorScheme });
          await open(page);
          if (sameMarkup && colorScheme === "light") expect(await hydrationChanges(page), "the same markup without JavaScript").toBe("");
          if (colorScheme === "light") for (const link of await smallLinks(page)) found.push(`target size: ${link}`);
          for (const v of await wcagViolations(page, browser, true)) found.push(`${colorScheme}: ${v}`);
        }
        expect(found).toEqual([]);
      },
    );
  }
}

/**
 * WCAG 2.2 AA, with JavaScript on and off: on every page at a phone's and a desktop's width, in the
 * light and the dark scheme, no violation of any impact of axe's WCAG 2.2 A and AA rules, none
 * serious of its best-practice rules, and no footer or standalone link under 24 × 24 px (measured
 * here); in the dark scheme, the scheme's own surface and text. The pages include step 5 and those
 * that exist only without JavaScript (a calculator step, the contact form with mistakes).
 *
 * axe needs script. Without JavaScript it runs in the page itself, a scripting page whose app
 * scripts are refused: the server's markup, never hydrated, as the visitor without JavaScript
 * gets it (the site has no <noscript> and no `scripting` media query, so nothing else differs).
 * Each page state is opened once: the width and the scheme are CSS alone (no script of the site
 * reads either), so the test resizes the page and switches the scheme on it, and lets their
 * transitions end before axe measures a colour. The dark scheme changes colours alone (app.css:
 * custom properties, fills, an outline), never what is shown or where: there axe runs the rules
 * that read colours, every other rule finding at each width what it found in the light scheme.
 */
import type { Page } from "@playwright/test";
import { expect, hydrated, test } from "./support/fixtures";
import { COLOUR_RULES, wcagViolations } from "./support/axe";
import { transitionsEnded } from "./support/contrast";
import { atStep5, calculator, dispatchApp } from "./support/wizard";

test.use({ javaScriptEnabled: true });
test.beforeEach(async ({ page }, testInfo) => {
  if (testInfo.project.use.javaScriptEnabled === false) await page.route("**/build/**/*.js", (route) => route.abort());
});

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
  const tag = withoutJs ? "@without-js" : sameMarkup ? "@once" : [];
  test(`${name} at 390 and 1280 px, light and dark: no WCAG 2.2 AA violation, no link under 24 × 24 px`, { tag }, async ({ page }) => {
    // Four axe runs (up to 1.3 CPU-seconds each): near a minute with the run's workers on half a
    // core (a machine four times slower), the default 60 s.
    test.slow();
    await page.setViewportSize({ width: 390, height: 900 });
    await open(page);
    if (sameMarkup) expect(await hydrationChanges(page), "the same markup without JavaScript").toBe("");
    const found: string[] = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await transitionsEnded(page);
        if (scheme === "light") for (const link of await smallLinks(page)) found.push(`${width} px, target size: ${link}`);
        const body = await page.locator("body").evaluate((b) => `${getComputedStyle(b).backgroundColor} on ${getComputedStyle(b).color}`);
        if (scheme === "dark" && body !== "rgb(18, 17, 42) on rgb(236, 235, 255)") found.push(`${width} px, dark: the body is ${body}`);
        for (const v of await wcagViolations(page, scheme === "dark" ? COLOUR_RULES : undefined)) found.push(`${width} px, ${scheme}: ${v}`);
      }
    }
    expect(found).toEqual([]);
  });
}

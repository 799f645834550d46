/**
 * WCAG 2.2 AA by axe on every page, with JavaScript on and off, and what axe does not reach:
 * target sizes, contrast on gradients, focus and portraits' rings; the dark scheme; print. axe
 * needs script: for the `no-js` project the page's own scripts are refused instead (the site has no
 * <noscript> and no `scripting` media query). Width and scheme are CSS alone, so each page state is
 * opened once, resized and switched, its transitions ended before a colour is measured.
 */
import type { Page } from "@playwright/test";
import { expect, forTheEye, hydrated, test } from "./support/fixtures";
import { wcagViolations } from "./support/axe";
import { contrasts, focusRingContrasts, transitionsEnded } from "./support/contrast";
import { atStep5, calculator, dispatchApp, priceOf } from "./support/wizard";

test.use({ javaScriptEnabled: true });
test.beforeEach(async ({ page }, testInfo) => {
  if (testInfo.project.use.javaScriptEnabled === false) await page.route("**/build/**/*.js", (route) => route.abort());
});

/**
 * Each page by how a visitor reaches it; `withoutJs` ones exist only without JavaScript; `sameMarkup`
 * ones are the same markup either way (checked), so what axe finds is checked once (`@once`).
 */
const PAGES: { name: string; open: (page: Page) => Promise<unknown>; withoutJs?: true; sameMarkup?: true }[] = [
  { name: "/", open: (page) => page.goto("/") },
  ...["/services", "/work", "/about", "/privacy"].map((name) => ({ name, open: (page: Page) => page.goto(name), sameMarkup: true as const })),
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
 * WCAG 2.2's 2.5.8: links under 24 × 24 CSS px in the footer or standing alone (one in a sentence is
 * exempt). axe passes a small target with nothing near, so it misses a list of short links.
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

/** What hydration changed in the body (scripts aside) against the server's markup, which a browser without JavaScript shows: "" when nothing. */
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

/** The pages whose contrast is measured too (below): CSS alone, so with JavaScript, once. */
const MEASURED = ["/", "/services", "/work", "/about", "/privacy"];

for (const { name, open, withoutJs, sameMarkup } of PAGES) {
  const tag = withoutJs ? "@without-js" : sameMarkup ? "@once" : [];
  const measured = MEASURED.includes(name);
  test(`${name} at 390 and 1280 px, light and dark: WCAG 2.2 AA, 24 px links${measured ? ", contrast" : ""}`, { tag }, async ({ page }, testInfo) => {
    // Four axe runs (up to 1.3 CPU-seconds each): near the default 60 s on a machine four times slower.
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
        for (const v of await wcagViolations(page)) found.push(`${width} px, ${scheme}: ${v}`);
        if (scheme === "dark") await forTheEye(page, `dark ${name} ${width}`.replace(/\W+/g, "-"), { fullPage: true });
      }
    }
    if (measured && testInfo.project.name === "js") found.push(...(await lowContrasts(page, name)));
    expect(found).toEqual([]);
  });
}

/**
 * Against every colour behind (gradients included; axe skips them): eyebrows under 4.5:1, focus
 * indicators missing or under 3:1 in either scheme, dark portraits' rings (navy discs on navy cards) under 3:1.
 */
async function lowContrasts(page: Page, path: string) {
  const low: string[] = [];
  const portraits = await contrasts(page, ".person img, .member img", "outline");
  if (path === "/" || path === "/about") expect(portraits.length).toBeGreaterThan(0);
  low.push(...portraits.filter((m) => !m.drawn || m.ratio < 3).map((m) => `dark portrait ${m.said}`));
  for (const scheme of ["dark", "light"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await transitionsEnded(page);
    const { rings, missing } = await focusRingContrasts(page);
    expect(rings.length, scheme).toBeGreaterThan(10);
    low.push(...missing.map((m) => `${scheme}: no visible focus indicator on ${m}`));
    low.push(...rings.filter((m) => m.ratio < 3).map((m) => `${scheme} ring ${m.said}`));
  }
  const eyebrows = await contrasts(page, ".eyebrow, .project-category, .member-role, .wizard-progress p", "text");
  expect(eyebrows.length).toBeGreaterThan(0);
  return [...low, ...eyebrows.filter((m) => m.ratio < 4.5).map((m) => `eyebrow ${m.said}`)];
}

test.describe("print, and the dark scheme on a small phone", { tag: "@once" }, () => {
  test("print at 320, 390 and 1280 px: no navigation, no buttons, black on white; the estimate prints, and a card's details", async ({ page }) => {
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ media: null });
      // A new wizard each time: the last one's answers stay in the tab.
      await page.evaluate(() => sessionStorage.clear()).catch(() => undefined);
      await page.goto("/");
      const wizard = page.locator("#calculator");
      for (const choice of ["Zoho Solutions", "Urgent (1-2 weeks)"]) await wizard.getByRole("button", { name: choice }).click();
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
      await expect(page.locator(".project-details").first()).toHaveCSS("opacity", "1");
      await forTheEye(page, `print-work-${width}`, { fullPage: true });
    }
  });

  test("dark scheme at 320 px: / and the largest estimate have dark surfaces and light text, and axe finds nothing", async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 900 });
    await page.emulateMedia({ colorScheme: "dark" });
    for (const path of ["/", "/estimate?service=mobileApp&timeframe=urgent&complexity=complex"]) {
      await page.goto(path);
      const body = await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
      expect(body, path).toEqual(["rgb(18, 17, 42)", "rgb(236, 235, 255)"]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), path).toBeLessThanOrEqual(0);
      expect(await wcagViolations(page), path).toEqual([]);
    }
    // The figure on one line, under "Estimate:" if need be, never split after "USD"; step 5's is layout.spec.ts's.
    const heading = page.getByRole("heading", { level: 1 });
    const figure = await heading.getByText(/USD\s11,250/).boundingBox();
    expect(figure!.height).toBeLessThan(60);
  });
});

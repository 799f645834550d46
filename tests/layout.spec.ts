/** The layout at the widths visitors bring, 320 px and 400% zoom included, with JavaScript on and off. */
import type { Locator, Page } from "@playwright/test";
import { COMPLEXITIES, estimate, SERVICES, TIMEFRAMES } from "../app/calculator/pricing";
import { hero } from "../app/content/claims";
import { calculatorText } from "../app/content/calculator";
import { estimateText } from "../app/content/estimate";
import { expect, shownWords, test } from "./support/fixtures";
import { calculator, fillDetails, priceOf, progress, sendRequest } from "./support/wizard";

const PAGES = ["/", "/services", "/work", "/about", "/privacy", "/estimate?service=mobileApp&timeframe=urgent&complexity=complex", "/no-such-page"];

/** How far the page, and the calculator's card where there is one, reach past their width (0: they fit). */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const doc = document.scrollingElement!;
    const card = document.getElementById("wizard");
    return { page: doc.scrollWidth - doc.clientWidth, card: card ? card.scrollWidth - card.clientWidth : 0 };
  });

/** Whole in view, and nothing (the fixed header, an open menu) drawn over it. */
async function expectUncovered(target: Locator) {
  await expect(target).toBeInViewport({ ratio: 1 });
  const onTop = () =>
    target.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && el.contains(hit);
    });
  await expect.poll(onTop).toBe(true);
}

/** Title Case, the convention of the site's first buttons (Get Started, View Our Work, Learn More, Contact Us): decision 0026. */
const MINOR_WORDS = new Set(["a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"]);
const inTitleCase = (label: string) => label.split(/\s+/).every((word, i) => (i > 0 && MINOR_WORDS.has(word)) || /^[A-Z0-9$]/.test(word));

test.describe("at 320 px", () => {
  test.use({ viewport: { width: 320, height: 640 } });

  test("no page scrolls sideways, at 320 px or at 390, and everything drawn as a button is in Title Case", { tag: "@once" }, async ({ page }) => {
    const wide: string[] = [];
    const cased: string[] = [];
    for (const path of PAGES) {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.goto(path);
      for (const width of [320, 390]) {
        await page.setViewportSize({ width, height: 640 });
        const over = (await sideways(page)).page;
        if (over > 0) wide.push(`${path} at ${width} px: ${over} px`);
      }
      // The visible words only (a link's visually hidden rest, e.g. " about AI Solutions", is not shown; a submit control shows its value).
      const labels = await shownWords(page.locator(".btn"));
      expect(labels.length, path).toBeGreaterThan(0);
      for (const label of labels) if (!inTitleCase(label)) cased.push(`${path}: ${label}`);
    }
    expect(wide).toEqual([]);
    expect(cased).toEqual([]);
  });

  test("no calculator step scrolls sideways or spills out of its card, widest figures and labels", async ({ page, formService }) => {
    const combinations = SERVICES.flatMap((s) => TIMEFRAMES.flatMap((t) => COMPLEXITIES.map((c) => [s, t, c] as const)));
    const total = ([s, t, c]: (typeof combinations)[number]) => estimate({ service: s.value, timeframe: t.value, complexity: c.value });
    const labels = ([s, t, c]: (typeof combinations)[number]) => s.label.length + t.label.length + c.label.length;
    const widest = combinations.reduce((a, b) => (total(b) > total(a) ? b : a));
    const longest = combinations.reduce((a, b) => (labels(b) > labels(a) ? b : a));
    const calc = calculator(page);
    const seen: string[] = [];
    const check = async (where: string) => {
      const over = await sideways(page);
      if (over.page > 0 || over.card > 0) seen.push(`${where}: page ${over.page} px, card ${over.card} px`);
    };
    for (const choice of [widest, longest]) {
      const name = choice.map((o) => o.label).join(" / ");
      await page.evaluate(() => sessionStorage.clear()).catch(() => undefined);
      await page.goto("/");
      await expect(progress(page)).toHaveText("Step 1 of 5");
      await check(`${name}, step 1`);
      for (const [i, option] of choice.entries()) {
        await calc.getByRole("button", { name: option.label, exact: true }).click();
        await expect(progress(page)).toHaveText(`Step ${i + 2} of 5`);
        await check(`${name}, step ${i + 2}`);
      }
      // A long address without spaces (step 4 has no error a browser can make).
      const description = calc.getByLabel("Project description");
      await description.fill("Dispatch for 40 drivers, like https://example.co.za/dispatch-board-with-live-tracking-and-proof-of-delivery");
      await calc.getByRole("button", { name: "Continue" }).click();
      await expect(progress(page)).toHaveText("Step 5 of 5");
      await check(`${name}, step 5`);
      if (choice === widest) {
        // The largest figure, USD 11,250 (written out, not made by the formatter), keeps to the breakdown's card.
        await expect(calc.locator("tfoot")).toContainText(/USD\s11,250/);
        const [table, form] = [await calc.getByRole("table").boundingBox(), await calc.locator("form").boundingBox()];
        expect(table!.x + table!.width).toBeLessThanOrEqual(form!.x + form!.width);
      }
      await calc.getByRole("button", { name: /^Send/ }).click();
      await expect(calc.locator(".field-error").first()).toBeVisible();
      await check(`${name}, step 5 with its errors`);
    }
    const company = `Sibanye Freight and Logistics (Pty) Ltd ${formService.token}`;
    await fillDetails(page, { company, email: "operations.director@sibanyefreightandlogistics.co.za", phone: "+27 11 555 0101" });
    await sendRequest(page);
    await check("the thanks");
    expect(seen).toEqual([]);
  });
});

test.describe("at 390 px", () => {
  // What a 390 px phone shows of a page under its browser's bars.
  test.use({ viewport: { width: 390, height: 700 } });

  test("Get Started and the menu's Estimate My Project land on the calculator's first choice", async ({ page, javaScriptEnabled }) => {
    await page.goto("/");
    await page.getByRole("link", { name: "Get Started" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/#wizard$/);
    await expectUncovered(calculator(page).locator(".choice").first());
    if (javaScriptEnabled) {
      // Focus is moved by script to the calculator's question; the next Tab reaches its first choice.
      await expect(calculator(page).getByRole("heading", { name: calculatorText.headings[1] })).toBeFocused();
      await page.keyboard.press("Tab");
      await expect(calculator(page).getByRole("button", { name: "Software Development", exact: true })).toBeFocused();
    }
    // Without JavaScript, on the home page itself the jump cannot close the <details> menu, which
    // then still covers the top of the screen: from other pages the link opens the home page anew.
    for (const path of javaScriptEnabled ? ["/about", "/"] : ["/about"]) {
      await page.goto(path);
      await page.locator(".nav-menu > summary").click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Estimate My Project" }).click();
      await expect(page).toHaveURL(/\/#wizard$/);
      await expectUncovered(calculator(page).locator(".choice").first());
    }
  });
});

test("from 768 to 1280 px the header's brand, links and Contact Us each keep one line", { tag: "@once" }, async ({ page }) => {
  await page.goto("/about");
  const wrapped: string[] = [];
  for (const width of [768, 800, 900, 1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    const lines = await page.locator(".nav-bar").evaluate((bar) =>
      [...bar.querySelectorAll("a")].flatMap((a) => {
        const texts = [...a.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== "");
        const range = document.createRange();
        return texts.map((t) => {
          range.selectNodeContents(t);
          return { text: t.textContent!.trim(), lines: range.getClientRects().length };
        });
      }),
    );
    expect(lines.length, `${width} px`).toBeGreaterThanOrEqual(6); // the brand, four links, Contact Us
    for (const { text, lines: n } of lines) if (n > 1) wrapped.push(`${width} px: ${text} on ${n} lines`);
    expect((await page.locator(".site-header").boundingBox())!.height, `${width} px`).toBeLessThanOrEqual(65);
  }
  expect(wrapped).toEqual([]);
});

test("the hero's example estimate opens that estimate's page when pressed, and draws no button (no words on a pill, the site's button shape)", async ({
  page,
}) => {
  await page.goto("/");
  const visual = page.locator(".hero-visual");
  await expect(visual).toBeVisible();
  await expect(visual).toHaveRole("img");
  await expect(visual).toHaveAccessibleName(hero.visual.alt);
  // The card looks like the calculator's step 5: pressed, it shows that estimate, whose page starts a request with its answers.
  const card = page.getByRole("link", { name: hero.visual.alt });
  await card.click();
  await expect(page).toHaveURL(hero.visual.href);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    `Estimate: ${priceOf({ service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex" })}`,
  );
  await expect(page.getByRole("button", { name: estimateText.start })).toBeVisible();

  await page.setContent(await (await page.request.get(hero.visual.src)).text());
  const buttons = await page.evaluate(() => {
    const words = [...document.querySelectorAll("text")].map((t) => t.getBoundingClientRect());
    return [...document.querySelectorAll("rect")]
      .filter((rect) => rect.getAttribute("fill") !== "none" && rect.rx.baseVal.value >= rect.height.baseVal.value / 2 - 0.5)
      .filter((rect) => {
        const b = rect.getBoundingClientRect();
        return words.some((w) => w.left >= b.left && w.right <= b.right && w.top >= b.top && w.bottom <= b.bottom);
      })
      .map((rect) => rect.outerHTML);
  });
  expect(buttons).toEqual([]);
});

test.describe("at 400% zoom (1280×1024: 320×256 CSS px)", () => {
  test.use({ viewport: { width: 320, height: 256 } });

  test('the header takes no more than a quarter of the screen and scrolls away; the wizard\'s "Step N of 5" is never under it', async ({ page }) => {
    await page.goto("/");
    const header = page.locator(".site-header");
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(256 / 4 + 1); // 4rem and its border
    await page.evaluate(() => window.scrollTo(0, 600));
    await expect.poll(async () => (await header.boundingBox())!.y + (await header.boundingBox())!.height).toBeLessThanOrEqual(0);

    await calculator(page).getByRole("button", { name: "AI Solutions" }).click();
    const step = calculator(page).getByText("Step 2 of 5");
    await step.scrollIntoViewIfNeeded();
    await expectUncovered(step);
  });
});

/**
 * /work, the portfolio, with JavaScript on and off: the filter by category through the address
 * (default All, a shared link opens filtered), a card that reveals its description, tags and links
 * on hover and on keyboard focus within it on a device that can hover, its picture filling their
 * place until then (on the home page too), and shows them always on a touch screen, never moving
 * the grid; a card's focus ring drawn whole, link names that begin with
 * their visible text, and a call to action that offers the team rather than the page itself.
 */
import { expect, test } from "./support/fixtures";
import type { Locator, Page } from "@playwright/test";
import { projects } from "../app/content/work";

const WIDTHS = [320, 390, 1280];

/** The layout boxes of the elements, without transforms (a hover lift is allowed, a reflow is not). */
const layoutBoxes = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const e = el as HTMLElement;
      return [e.offsetLeft, e.offsetTop, e.offsetWidth, e.offsetHeight].join(",");
    }),
  );

/**
 * How much of a card's details a visitor sees: 1 when the description, the tags and the links are
 * all visible and fully opaque, 0 when none is (-1 when they differ). Until revealed they lie,
 * transparent, under the card's picture; revealed, nothing covers them (pictureWholeAndClear).
 */
const detailsShown = (card: Locator) =>
  card.evaluate((el) => {
    const seen = ["p", ".tags", ".project-links"].map((s) => {
      const part = el.querySelector(`.project-details ${s}`)!;
      let opacity = 1;
      for (let n: Element | null = part; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
      return getComputedStyle(part).visibility === "visible" ? opacity : 0;
    });
    return seen.every((o) => o === seen[0]) ? seen[0] : -1;
  });

/**
 * The band at a card's foot that shows nothing, in px: from the lowest of its visible parts (a
 * picture, a text, a tag, a link; a transparent one shows nothing) to the card's bottom edge.
 */
const emptyBand = (card: Locator) =>
  card.evaluate((el) => {
    const shown = (e: Element) => {
      for (let n: Element | null = e; n && n !== el.parentElement; n = n.parentElement) if (Number(getComputedStyle(n).opacity) === 0) return false;
      return getComputedStyle(e).visibility === "visible";
    };
    const parts = [...el.querySelectorAll("img, h3, p, li, a")].filter(shown);
    return Math.round(el.getBoundingClientRect().bottom - Math.max(...parts.map((e) => e.getBoundingClientRect().bottom)));
  });

/** Whether a card's picture is drawn whole at its 16:10 and clear of its details (nothing covers them, nor they it). */
const pictureWholeAndClear = (card: Locator) =>
  card.evaluate((el) => {
    const picture = el.querySelector("img")!.getBoundingClientRect();
    const details = el.querySelector(".project-details")!.getBoundingClientRect();
    return Math.abs(picture.height - (picture.width * 10) / 16) <= 1 && picture.bottom <= details.top + 0.5;
  });

const cardsOf = (page: Page) => page.locator("article.project-card");
const GRID = "article.project-card, .grid--3";

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("on a device that can hover, a card reveals its description, tags and links on hover, and the grid never moves", async ({ page }) => {
      await page.goto("/work");
      const cards = cardsOf(page);
      expect(await cards.count()).toBe(projects.length);
      const [first, second] = [cards.nth(0), cards.nth(1)];
      await page.mouse.move(0, 0);
      for (const card of await cards.all()) expect(await detailsShown(card)).toBe(0);
      const before = await layoutBoxes(page, GRID);

      await first.locator("h3").hover();
      await expect.poll(() => detailsShown(first)).toBe(1);
      expect(await detailsShown(second)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);
      // Hoverable (WCAG 1.4.13): the pointer may move onto the revealed links, which stay.
      await first.getByRole("link", { name: /^Live site of / }).hover();
      // (Reaching them may scroll the page under the pointer, which then fades them in again.)
      await expect.poll(() => detailsShown(first)).toBe(1);

      await second.locator("img").hover();
      await expect.poll(() => detailsShown(second)).toBe(1);
      await expect.poll(() => detailsShown(first)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);
    });

    test("on a device that can hover, keyboard focus within a card reveals it, and the grid never moves", async ({ page }) => {
      await page.goto("/work");
      const cards = cardsOf(page);
      const [first, second] = [cards.nth(0), cards.nth(1)];
      await page.mouse.move(0, 0);
      const before = await layoutBoxes(page, GRID);
      // From the last filter link, Tab reaches the first card's first link.
      await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link").last().focus();
      await page.keyboard.press("Tab");
      await expect(first.getByRole("link", { name: /^Live site of / })).toBeFocused();
      await expect.poll(() => detailsShown(first)).toBe(1);
      expect(await detailsShown(second)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);

      const firstLinks = await first.getByRole("link").count();
      for (let i = 0; i < firstLinks; i++) await page.keyboard.press("Tab");
      await expect(second.getByRole("link", { name: /^Live site of / })).toBeFocused();
      await expect.poll(() => detailsShown(second)).toBe(1);
      await expect.poll(() => detailsShown(first)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);
    });

    for (const path of ["/work", "/"]) {
      test(`on ${path}, a card at rest keeps no empty band for its details: its picture fills their place, and gives it back whole when they show`, async ({
        page,
      }) => {
        await page.goto(path);
        await page.mouse.move(0, 0);
        const cards = await cardsOf(page).all();
        expect(cards.length).toBeGreaterThanOrEqual(3);
        // At most its border: on main, 1280 px left about 300 px under each title.
        for (const card of cards) expect(await emptyBand(card)).toBeLessThanOrEqual(1);
        const before = await layoutBoxes(page, GRID);
        await cards[0]!.locator("h3").hover();
        await expect.poll(() => detailsShown(cards[0]!)).toBe(1);
        expect(await pictureWholeAndClear(cards[0]!)).toBe(true);
        expect(await layoutBoxes(page, GRID)).toEqual(before);
      });
    }

    test("the focus ring of a card's link is drawn whole, not clipped by the card", { tag: "@once" }, async ({ page }) => {
      await page.goto("/work");
      const card = page.locator("article.project-card").first();
      // From the last filter link, Tab reaches the first card's first link.
      await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link").last().focus();
      await page.keyboard.press("Tab");
      const live = card.getByRole("link", { name: /^Live site of / });
      await expect(live).toBeFocused();
      const clipped = await live.evaluate((el) => {
        const style = getComputedStyle(el);
        const reach = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
        const r = el.getBoundingClientRect();
        const ring = { left: r.left - reach, top: r.top - reach, right: r.right + reach, bottom: r.bottom + reach };
        const clips: string[] = [];
        for (let n = el.parentElement; n; n = n.parentElement) {
          const s = getComputedStyle(n);
          if (s.overflowX === "visible" && s.overflowY === "visible" && s.clipPath === "none") continue;
          const b = n.getBoundingClientRect();
          if (n === document.body || n === document.documentElement) continue;
          if (ring.left < b.left || ring.top < b.top || ring.right > b.right || ring.bottom > b.bottom) clips.push(n.className || n.tagName);
        }
        return { clips, width: parseFloat(style.outlineWidth), style: style.outlineStyle };
      });
      expect(clipped.style).not.toBe("none");
      expect(clipped.width).toBeGreaterThanOrEqual(2);
      expect(clipped.clips).toEqual([]);
    });
  });
}

test("/work filters projects by category through the URL, default All", async ({ page }) => {
  await page.goto("/work");
  const filter = page.getByRole("navigation", { name: "Filter projects by category" });
  await expect(filter.getByRole("link")).toHaveText(["All", "Software Development", "Mobile Development", "AI Solutions"]);
  await expect(filter.getByRole("link", { name: "All" })).toHaveAttribute("aria-current", "true");
  const cards = page.locator("article.project-card");
  const all = await cards.count();
  expect(all).toBeGreaterThanOrEqual(6);

  await filter.getByRole("link", { name: "AI Solutions" }).click();
  await expect(page).toHaveURL(/\/work\?category=ai$/);
  await expect(filter.getByRole("link", { name: "AI Solutions" })).toHaveAttribute("aria-current", "true");
  await expect(cards.first()).toContainText("AI Solutions");
  const ai = await cards.count();
  expect(ai).toBeGreaterThan(0);
  expect(ai).toBeLessThan(all);
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("AI Solutions");

  await filter.getByRole("link", { name: "All" }).click();
  await expect(page).toHaveURL(/\/work$/);
  await expect(cards).toHaveCount(all);
});

test("a shared /work?category= link opens filtered, and project cards carry their links", { tag: "@once" }, async ({ page }) => {
  await page.goto("/work?category=mobile");
  const cards = page.locator("article.project-card");
  // The count first: a loop over no cards would pass.
  await expect(cards).toHaveCount(projects.filter((p) => p.category === "mobile").length);
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("Mobile Development");
  await page.goto("/work");
  const withRepo = page.getByRole("link", { name: /^Code repository of / });
  expect(await withRepo.count()).toBeGreaterThan(0);
  expect(await withRepo.count()).toBeLessThan(await cards.count());
  expect(await page.getByRole("link", { name: /^Live site of / }).count()).toBe(await cards.count());
});

test.describe("on a touch phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("every card shows its description, tags and links always, without a touch", async ({ page }) => {
    await page.goto("/work");
    const cards = cardsOf(page);
    expect(await cards.count()).toBe(projects.length);
    for (const card of await cards.all()) expect(await detailsShown(card)).toBe(1);
  });
});

test('every "Code repository" and "Live site" link\'s name begins with its visible text (WCAG 2.5.3)', { tag: "@once" }, async ({ page }) => {
  await page.goto("/work");
  const repos = page.getByRole("link", { name: /^Code repository of / });
  expect(await repos.count()).toBe(projects.filter((p) => p.githubUrl).length);
  const links = page.locator(".project-links a");
  // Every card's live site and the repositories there are: the loop below checks them all.
  await expect(links).toHaveCount(projects.filter((p) => p.liveUrl).length + projects.filter((p) => p.githubUrl).length);
  for (const link of await links.all()) {
    const visible = await link.evaluate((el) =>
      [...el.childNodes]
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent)
        .join("")
        .trim(),
    );
    expect(["Live site", "Code repository"]).toContain(visible);
    await expect(link).toHaveAccessibleName(new RegExp(`^${visible} of .+`));
  }
});

test("no page links to itself from its call to action: /work offers the team instead", { tag: "@once" }, async ({ page }) => {
  await page.goto("/work");
  const cta = page.getByRole("region", { name: "Know what your project will cost before we talk" });
  await expect(cta.getByRole("link")).toHaveText(["Estimate My Project", "Meet the Team"]);
  await expect(cta.locator('a[href="/work"]')).toHaveCount(0);
  await page.goto("/about");
  await expect(
    page.getByRole("region", { name: "Know what your project will cost before we talk" }).getByRole("link", { name: "View Our Work" }),
  ).toHaveAttribute("href", "/work");
});

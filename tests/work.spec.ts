/**
 * /work, the portfolio: the filter by category through the address, with JavaScript on and off
 * (default All, a shared link opens filtered); every picture there when the page loads, not
 * after a scroll; a card that reveals its description, tags and links on hover and on keyboard
 * focus within it on a device that can hover, its picture filling their place until then (on the
 * home page too), and shows them always on a touch screen, never moving the grid; a card's focus
 * ring drawn whole, link names that begin with their visible text, and a call to action that
 * offers the team rather than the page itself.
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

/** Every project picture on the page has loaded (decoded with its own size, where a lazy one below the fold has none), with no scroll. */
async function picturesLoaded(page: Page) {
  await page.waitForLoadState("load");
  const pictures = page.locator("article.project-card img");
  expect(await pictures.count()).toBeGreaterThan(0);
  await expect
    .poll(() =>
      pictures.evaluateAll((imgs) =>
        imgs.filter((img) => !((img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).map((img) => img.getAttribute("src")),
      ),
    )
    .toEqual([]);
  expect(await page.evaluate(() => scrollY)).toBe(0);
}

/** A card at rest keeps no empty band for its details (at most its border: on main, 1280 px left about 300 px under each title); hovered, its picture gives their place back whole. */
async function noEmptyBand(page: Page) {
  await page.mouse.move(0, 0);
  const cards = await cardsOf(page).all();
  expect(cards.length).toBeGreaterThanOrEqual(3);
  for (const card of cards) expect(await emptyBand(card)).toBeLessThanOrEqual(1);
  const before = await layoutBoxes(page, GRID);
  await cards[0]!.locator("h3").hover();
  await expect.poll(() => detailsShown(cards[0]!)).toBe(1);
  expect(await pictureWholeAndClear(cards[0]!)).toBe(true);
  expect(await layoutBoxes(page, GRID)).toEqual(before);
}

// /work is the same markup with JavaScript and without (accessibility.spec.ts), and its cards are CSS alone: once.
for (const width of WIDTHS) {
  test(
    `/work at ${width} px on a device that can hover: every picture loaded before any scroll; a card at rest shows its picture in its details' place, and reveals them on hover and on keyboard focus within it, its focus ring whole, the grid never moving`,
    { tag: "@once" },
    async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      await page.goto("/work");
      await picturesLoaded(page);
      await expect(page.locator("article.project-card img")).toHaveCount(projects.length);
      await noEmptyBand(page);
      const cards = cardsOf(page);
      expect(await cards.count()).toBe(projects.length);
      const [first, second] = [cards.nth(0), cards.nth(1)];
      await page.mouse.move(0, 0);
      await expect.poll(() => detailsShown(first)).toBe(0);
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

      // From the last filter link, Tab reaches the first card's first link.
      await page.mouse.move(0, 0);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link").last().focus();
      await page.keyboard.press("Tab");
      const live = first.getByRole("link", { name: /^Live site of / });
      await expect(live).toBeFocused();
      await expect.poll(() => detailsShown(first)).toBe(1);
      await expect.poll(() => detailsShown(second)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);
      expect(await ringClippedBy(live)).toEqual({ clips: [], drawn: true });
      const firstLinks = await first.getByRole("link").count();
      for (let i = 0; i < firstLinks; i++) await page.keyboard.press("Tab");
      await expect(second.getByRole("link", { name: /^Live site of / })).toBeFocused();
      await expect.poll(() => detailsShown(second)).toBe(1);
      await expect.poll(() => detailsShown(first)).toBe(0);
      expect(await layoutBoxes(page, GRID)).toEqual(before);
    },
  );
}

test("the home page's featured cards at 320, 390 and 1280 px: every picture loaded before any scroll, and no empty band for a card's details", async ({
  page,
}) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("about:blank"); // a new page at the top, not one that keeps the last one's scroll
    await page.goto("/");
    await picturesLoaded(page);
    await noEmptyBand(page);
  }
});

/** Which boxes around a focused link clip its focus ring (outline and offset), and whether one is drawn (solid or other, 2 px or more). */
const ringClippedBy = (link: Locator) =>
  link.evaluate((el) => {
    const style = getComputedStyle(el);
    const reach = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
    const r = el.getBoundingClientRect();
    const ring = { left: r.left - reach, top: r.top - reach, right: r.right + reach, bottom: r.bottom + reach };
    const clips: string[] = [];
    for (let n = el.parentElement; n && n !== document.body; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.overflowX === "visible" && s.overflowY === "visible" && s.clipPath === "none") continue;
      const b = n.getBoundingClientRect();
      if (ring.left < b.left || ring.top < b.top || ring.right > b.right || ring.bottom > b.bottom) clips.push(n.className || n.tagName);
    }
    return { clips, drawn: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
  });

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

test(
  "a shared /work?category= link opens filtered; every card carries its links, each named first by its visible text (WCAG 2.5.3); the call to action offers the team, not /work itself",
  { tag: "@once" },
  async ({ page }) => {
    await page.goto("/work?category=mobile");
    const cards = page.locator("article.project-card");
    // The count first: a loop over no cards would pass.
    await expect(cards).toHaveCount(projects.filter((p) => p.category === "mobile").length);
    for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("Mobile Development");
    await page.goto("/work");
    expect(await page.getByRole("link", { name: /^Live site of / }).count()).toBe(await cards.count());
    expect(await page.getByRole("link", { name: /^Code repository of / }).count()).toBe(projects.filter((p) => p.githubUrl).length);
    expect(projects.filter((p) => p.githubUrl).length).toBeGreaterThan(0);
    expect(projects.filter((p) => p.githubUrl).length).toBeLessThan(projects.length);
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
    // No page links to itself from its call to action.
    const cta = page.getByRole("region", { name: "Know what your project will cost before we talk" });
    await expect(cta.getByRole("link")).toHaveText(["Estimate My Project", "Meet the Team"]);
    await expect(cta.locator('a[href="/work"]')).toHaveCount(0);
    await page.goto("/about");
    await expect(
      page.getByRole("region", { name: "Know what your project will cost before we talk" }).getByRole("link", { name: "View Our Work" }),
    ).toHaveAttribute("href", "/work");
  },
);

test.describe("on a touch phone", { tag: "@once" }, () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("every card shows its description, tags and links always, without a touch", async ({ page }) => {
    await page.goto("/work");
    const cards = cardsOf(page);
    expect(await cards.count()).toBe(projects.length);
    for (const card of await cards.all()) expect(await detailsShown(card)).toBe(1);
  });
});

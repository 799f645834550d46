/** /work: its filter through the address, and cards that reveal their details on hover, focus and touch screens, the grid still. */
import type { Page } from "@playwright/test";
import { featuredProjects } from "../app/content/projects";
import { testimonials } from "../app/content/testimonials";
import { projects } from "../app/content/work";
import { expect, shownWords, test } from "./support/fixtures";

const WIDTHS = [320, 390, 1280];

/**
 * Each card as a visitor sees it: `shown`, how much of its details (description, tags, links) are
 * visible and opaque (1 all, 0 none, -1 some); `band`, the px at its foot that show nothing below
 * its lowest visible part; `whole`, its picture drawn whole at 16:10 and clear of the details.
 */
const cardsSeen = (page: Page) =>
  page.locator("article.project-card").evaluateAll((cards) =>
    cards.map((card) => {
      const opacity = (e: Element) => {
        let o = getComputedStyle(e).visibility === "visible" ? 1 : 0;
        for (let n: Element | null = e; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
        return o;
      };
      const seen = ["p", ".tags", ".project-links"].map((s) => opacity(card.querySelector(`.project-details ${s}`)!));
      const bottom = Math.max(...[...card.querySelectorAll("img, h3, p, li, a")].filter((e) => opacity(e) > 0).map((e) => e.getBoundingClientRect().bottom));
      const [picture, details] = [card.querySelector("img")!.getBoundingClientRect(), card.querySelector(".project-details")!.getBoundingClientRect()];
      return {
        shown: seen.every((o) => o === seen[0]) ? seen[0] : -1,
        band: Math.round(card.getBoundingClientRect().bottom - bottom),
        whole: Math.abs(picture.height - (picture.width * 10) / 16) <= 1 && picture.bottom <= details.top + 0.5,
      };
    }),
  );
const shown = async (page: Page, card: number) => (await cardsSeen(page))[card]!.shown;

/** The grid's layout boxes, without transforms (a hover lift is allowed, a reflow is not). */
const grid = (page: Page) =>
  page
    .locator("article.project-card, .grid--3")
    .evaluateAll((els) => (els as HTMLElement[]).map((e) => [e.offsetLeft, e.offsetTop, e.offsetWidth, e.offsetHeight].join()));

/**
 * The page loaded with no scroll, every picture decoded (a lazy one would not be); no card at rest
 * keeps an empty band for its details (once 300 px); the first, hovered, shows them, the grid unmoved.
 */
async function loadedAndAtRest(page: Page, path: string) {
  await page.goto("about:blank"); // a new page at the top, not one that keeps the last one's scroll
  await page.goto(path);
  const pictures = page.locator("article.project-card img");
  expect(await pictures.count()).toBeGreaterThanOrEqual(3);
  await expect.poll(() => pictures.evaluateAll((imgs) => (imgs as HTMLImageElement[]).filter((i) => !(i.complete && i.naturalWidth > 0)).length)).toBe(0);
  expect(await page.evaluate(() => scrollY)).toBe(0);
  await page.mouse.move(0, 0);
  for (const card of await cardsSeen(page)) expect(card.band).toBeLessThanOrEqual(1);
  const before = await grid(page);
  await page.locator("article.project-card h3").first().hover();
  await expect.poll(() => shown(page, 0)).toBe(1);
  expect((await cardsSeen(page))[0]!.whole).toBe(true);
  expect(await grid(page)).toEqual(before);
  await page.mouse.move(0, 0);
  return before;
}

// /work is the same markup with JavaScript and without (accessibility.spec.ts), and its cards are CSS alone: once.
for (const width of WIDTHS) {
  test(`/work at ${width} px with hover: a card reveals its details on hover and focus, the grid still`, { tag: "@once" }, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    const before = await loadedAndAtRest(page, "/work");
    const cards = page.locator("article.project-card");
    await expect(cards.locator("img")).toHaveCount(projects.length);
    await expect.poll(async () => (await cardsSeen(page)).map((c) => c.shown)).toEqual(projects.map(() => 0));
    const [first, second] = [cards.nth(0), cards.nth(1)];
    await first.locator("h3").hover();
    await expect.poll(() => shown(page, 0)).toBe(1);
    expect(await shown(page, 1)).toBe(0);
    // Hoverable (WCAG 1.4.13): the revealed links stay under the pointer (after any scroll it caused).
    await first.getByRole("link", { name: /^Live site of / }).hover();
    await expect.poll(() => shown(page, 0)).toBe(1);
    await second.locator("img").hover();
    await expect.poll(() => shown(page, 1)).toBe(1);
    await expect.poll(() => shown(page, 0)).toBe(0);
    expect(await grid(page)).toEqual(before);

    // From the last filter link, Tab reaches the first card's first link, then the second card's.
    await page.mouse.move(0, 0);
    await page.getByRole("navigation", { name: "Filter projects by category" }).getByRole("link").last().focus();
    await page.keyboard.press("Tab");
    const live = first.getByRole("link", { name: /^Live site of / });
    await expect(live).toBeFocused();
    await expect.poll(() => shown(page, 0)).toBe(1);
    await expect.poll(() => shown(page, 1)).toBe(0);
    expect(await grid(page)).toEqual(before);
    // Its focus ring is drawn (2 px or more) and clipped by no box around it.
    const ring = await live.evaluate((el) => {
      const style = getComputedStyle(el);
      const [r, reach] = [el.getBoundingClientRect(), parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset)];
      const clips: string[] = [];
      for (let n = el.parentElement; n && n !== document.body; n = n.parentElement) {
        const s = getComputedStyle(n);
        if (s.overflowX === "visible" && s.overflowY === "visible" && s.clipPath === "none") continue;
        const b = n.getBoundingClientRect();
        if (r.left - reach < b.left || r.top - reach < b.top || r.right + reach > b.right || r.bottom + reach > b.bottom) clips.push(n.className || n.tagName);
      }
      return { clips, drawn: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
    });
    expect(ring).toEqual({ clips: [], drawn: true });
    for (let i = await first.getByRole("link").count(); i > 0; i--) await page.keyboard.press("Tab");
    await expect(second.getByRole("link", { name: /^Live site of / })).toBeFocused();
    await expect.poll(() => shown(page, 1)).toBe(1);
    await expect.poll(() => shown(page, 0)).toBe(0);
    expect(await grid(page)).toEqual(before);
  });
}

// Without scripting Chrome loads lazy pictures at once, and the cards are CSS alone: with JavaScript, once.
test("the home page at 320, 390 and 1280 px: its cards as on /work, its testimonials, the hero's visual only with room", { tag: "@once" }, async ({ page }) => {
  const fetched: string[] = [];
  page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    fetched.length = 0;
    await loadedAndAtRest(page, "/");
    const said = page.getByRole("region", { name: "What our clients say" });
    await expect(said.getByRole("img", { name: "Rated 5 out of 5" })).toHaveCount(testimonials.length);
    await expect(said.locator("blockquote")).toHaveCount(testimonials.length);
    const work = page.getByRole("region", { name: "Systems our clients use every day" });
    await expect(work.locator("article.project-card")).toHaveCount(featuredProjects.length);
    await expect(work.getByRole("link", { name: "See All Our Work" })).toHaveAttribute("href", "/work");

    const visual = page.locator(".hero-visual");
    await expect(visual).toHaveAttribute("width", "480");
    await expect(visual).toHaveAttribute("height", "400");
    if (width >= 1024) {
      await expect(visual).toBeVisible();
      await expect(visual).toHaveAttribute("alt", /estimate/);
      const [text, image] = [await page.locator("#hero-title").boundingBox(), await visual.boundingBox()];
      expect(image!.x).toBeGreaterThan(text!.x + text!.width - 1); // the right half
      await expect.poll(() => visual.evaluate((img: HTMLImageElement) => img.currentSrc)).toMatch(/\/images\/hero-estimate\.svg$/);
      await expect.poll(() => visual.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
    } else {
      await expect(visual).toBeHidden();
      // Hidden, and its source does not match: a phone never downloads it.
      await page.waitForLoadState("load");
      expect(fetched, `${width} px`).not.toContain("/images/hero-estimate.svg");
    }
  }
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
  expect(ai > 0 && ai < all).toBe(true);
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("AI Solutions");
  await filter.getByRole("link", { name: "All" }).click();
  await expect(page).toHaveURL(/\/work$/);
  await expect(cards).toHaveCount(all);
});

test("a shared filter link opens filtered; links named by their words; the call to action", { tag: "@once" }, async ({ page }) => {
  await page.goto("/work?category=mobile");
  const cards = page.locator("article.project-card");
  // The count first: a loop over no cards would pass.
  await expect(cards).toHaveCount(projects.filter((p) => p.category === "mobile").length);
  for (const card of await cards.all()) await expect(card.locator(".project-category")).toHaveText("Mobile Development");
  await page.goto("/work");
  const repos = projects.filter((p) => p.githubUrl).length;
  expect(repos > 0 && repos < projects.length).toBe(true);
  await expect(page.getByRole("link", { name: /^Live site of / })).toHaveCount(projects.length);
  await expect(page.getByRole("link", { name: /^Code repository of / })).toHaveCount(repos);
  const links = page.locator(".project-links a");
  await expect(links).toHaveCount(projects.filter((p) => p.liveUrl).length + repos);
  for (const [i, visible] of (await shownWords(links)).entries()) {
    expect(["Live site", "Code repository"]).toContain(visible);
    await expect(links.nth(i)).toHaveAccessibleName(new RegExp(`^${visible} of .+`));
  }
  // No page links to itself from its call to action.
  const cta = (p: Page) => p.getByRole("region", { name: "Know what your project will cost before we talk" });
  await expect(cta(page).getByRole("link")).toHaveText(["Estimate My Project", "Meet the Team"]);
  await expect(cta(page).locator('a[href="/work"]')).toHaveCount(0);
  await page.goto("/about");
  await expect(cta(page).getByRole("link", { name: "View Our Work" })).toHaveAttribute("href", "/work");
});

test.describe("on a touch phone", { tag: "@once" }, () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("every card shows its description, tags and links always, without a touch", async ({ page }) => {
    await page.goto("/work");
    expect((await cardsSeen(page)).map((c) => c.shown)).toEqual(projects.map(() => 1));
  });
});

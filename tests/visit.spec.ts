/**
 * A prospective client's visit, in every current browser, at 320, 390 and 1280 px, with
 * JavaScript on and off (the two projects). With SCREENSHOTS=1, screenshots of the print and dark
 * styles go to the test's output folder (test-results/) to be looked at.
 */
import { expect, forTheEye, test } from "./support/fixtures";
import type { Page } from "@playwright/test";
import { featuredProjects } from "../app/content/projects";
import { projects } from "../app/content/work";
import { testimonials } from "../app/content/testimonials";
import { seriousViolations } from "./support/axe";
import { focusRingContrasts, textContrasts } from "./support/contrast";

const PAGES = ["/", "/services", "/work", "/about", "/privacy"];
const WIDTHS = [320, 390, 1280];

/** The layout boxes of the elements, without transforms (a hover lift is allowed, a reflow is not). */
const layoutBoxes = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const e = el as HTMLElement;
      return [e.offsetLeft, e.offsetTop, e.offsetWidth, e.offsetHeight].join(",");
    }),
  );

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("the navigation works: every link reachable, the toggle only where the links fold away", async ({ page }) => {
      await page.goto("/about");
      const nav = page.getByRole("navigation", { name: "Main" });
      const toggle = page.locator(".nav-menu > summary");
      // The links are not inside the <details>: a closed one hides its content in every browser
      // without ::details-content (Chrome < 131, Firefox < 143, Safari < 18.4).
      await expect(page.locator("details nav, details a")).toHaveCount(0);
      if (width >= 768) {
        await expect(toggle).toBeHidden();
      } else {
        await expect(toggle).toBeVisible();
        await expect(nav.getByRole("link", { name: "Services" })).toBeHidden();
        await toggle.click();
      }
      for (const name of ["Home", "Services", "Our Work", "About"]) await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
      await expect(nav.getByRole("link", { name: "Contact Us" })).toBeVisible();
      await nav.getByRole("link", { name: "Our Work" }).click();
      await expect(page).toHaveURL(/\/work$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Projects we are proud of");
    });

    test("the brand and the menu toggle fit on one line, inside the screen", { tag: "@once" }, async ({ page }) => {
      await page.goto("/");
      const brand = await page.locator(".site-header .brand").boundingBox();
      const header = await page.locator(".site-header").boundingBox();
      const lineHeight = await page.locator(".site-header .brand").evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
      expect(brand!.height).toBeLessThanOrEqual(Math.max(32, lineHeight) + 1);
      expect(header!.height).toBeLessThanOrEqual(65);
      const toggle = page.locator(".nav-menu > summary");
      if (width < 768) {
        const box = (await toggle.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(brand!.x + brand!.width);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    test("/work cards show their descriptions without hover, and hover or focus never moves the grid", { tag: "@once" }, async ({ page }) => {
      await page.goto("/work");
      const cards = page.locator("article.project-card");
      expect(await cards.count()).toBe(projects.length);
      for (const card of await cards.all()) {
        await expect(card.locator(".project-details p").first()).toBeVisible();
        await expect(card.getByRole("link", { name: /^Live site of / })).toBeVisible();
      }
      const before = await layoutBoxes(page, "article.project-card, .grid--3");
      await cards.first().hover();
      expect(await layoutBoxes(page, "article.project-card, .grid--3")).toEqual(before);
      await cards
        .nth(1)
        .getByRole("link", { name: /^Live site of / })
        .focus();
      expect(await layoutBoxes(page, "article.project-card, .grid--3")).toEqual(before);
    });

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

    test("the home page shows the testimonials and the featured projects; the hero's visual only where there is room", { tag: "@once" }, async ({ page }) => {
      const fetched: string[] = [];
      page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
      await page.goto("/");
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
        expect(fetched).not.toContain("/images/hero-estimate.svg");
      }
    });
  });
}

// Where the links are, not how they lay out: one phone width is enough.
test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("the privacy notice is linked from the footer and beside both forms' send buttons", async ({ page }) => {
    await page.goto("/services");
    await page.getByRole("contentinfo").getByRole("link", { name: "Privacy notice" }).click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Privacy notice");

    await page.goto("/");
    const contact = page.locator("#contact form");
    await expect(contact.getByRole("link", { name: "How we handle your data" })).toHaveAttribute("href", "/privacy");
    // The calculator's note shows at step 5, with the send button.
    const wizard = page.locator("#calculator");
    await wizard.getByRole("button", { name: "Software Development" }).click();
    await wizard.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await wizard.getByRole("button", { name: "Medium" }).click();
    await wizard.getByLabel("Project description").fill("A booking portal for our three clinics, with SMS reminders.");
    await wizard.getByRole("button", { name: "Continue" }).click();
    await expect(wizard.getByText("Step 5 of 5")).toBeVisible();
    const note = wizard.getByRole("link", { name: "How we handle your data" });
    await expect(note).toBeVisible();
    await note.click();
    await expect(page).toHaveURL(/\/privacy$/);
  });
});

test.describe("at 400% zoom (1280×1024: 320×256 CSS px)", () => {
  test.use({ viewport: { width: 320, height: 256 } });

  test("the header takes no more than a quarter of the screen and scrolls away", async ({ page }) => {
    await page.goto("/");
    const header = page.locator(".site-header");
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(256 / 4 + 1); // 4rem and its border
    await page.evaluate(() => window.scrollTo(0, 600));
    await expect.poll(async () => (await header.boundingBox())!.y + (await header.boundingBox())!.height).toBeLessThanOrEqual(0);
  });

  test('the wizard\'s "Step N of 5" is never under the header', async ({ page }) => {
    await page.goto("/");
    const wizard = page.locator("#calculator");
    await wizard.getByRole("button", { name: "AI Solutions" }).click();
    const progress = wizard.getByText("Step 2 of 5");
    await expect(progress).toBeAttached();
    await progress.scrollIntoViewIfNeeded();
    await expect(progress).toBeInViewport();
    const onTop = await progress.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + 4, r.top + r.height / 2);
      return !!hit && (el === hit || el.contains(hit));
    });
    expect(onTop).toBe(true);
  });
});

test("a link into the page lands below the fixed header (1280 px)", async ({ page }) => {
  await page.goto("/services#ai-solutions");
  const heading = page.getByRole("heading", { level: 2, name: "AI Solutions" });
  await expect(heading).toBeInViewport();
  const header = (await page.locator(".site-header").boundingBox())!;
  await expect.poll(async () => (await page.locator("#ai-solutions").boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height - 1);
});

test("eyebrow labels reach 4.5:1 against every colour of their background, page headers' gradients included", { tag: "@once" }, async ({ page }) => {
  const low: string[] = [];
  for (const path of PAGES) {
    await page.goto(path);
    const measured = await textContrasts(page, ".eyebrow, .project-category, .member-role, .wizard-progress p");
    expect(measured.length, path).toBeGreaterThan(0);
    for (const m of measured) if (m.ratio < 4.5) low.push(`${path} ${m.what}: ${m.color} on ${m.against.join(", ")} = ${m.ratio.toFixed(2)}`);
  }
  expect(low).toEqual([]);
});

for (const scheme of ["light", "dark"] as const) {
  for (const path of PAGES) {
    test(`every focus indicator on ${path} reaches 3:1 against the background it is drawn on (${scheme} scheme)`, { tag: "@once" }, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(path);
      const { rings, missing } = await focusRingContrasts(page);
      expect(rings.length).toBeGreaterThan(10);
      expect(missing, "focusable without a visible indicator").toEqual([]);
      expect(rings.filter((m) => m.ratio < 3).map((m) => `${m.what}: ${m.color} on ${m.against.join(", ")} = ${m.ratio.toFixed(2)}`)).toEqual([]);
    });
  }
}

test('every "Code repository" and "Live site" link\'s name begins with its visible text (WCAG 2.5.3)', { tag: "@once" }, async ({ page }) => {
  await page.goto("/work");
  const repos = page.getByRole("link", { name: /^Code repository of / });
  expect(await repos.count()).toBe(projects.filter((p) => p.githubUrl).length);
  const links = page.locator(".project-links a");
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

test("the header is opaque: no grey band where it passes over the dark hero", { tag: "@once" }, async ({ page }) => {
  await page.goto("/");
  await page.evaluate(() => window.scrollTo(0, 200)); // the hero now runs under the header
  // Fully opaque white (a translucent white let the indigo through: the grey band).
  await expect(page.locator(".site-header")).toHaveCSS("background-color", "rgb(255, 255, 255)");
});

test("favicon.ico and the apple-touch-icon are linked and served as images", { tag: "@once" }, async ({ page, request }) => {
  await page.goto("/about");
  await expect(page.locator('head link[rel="icon"][href="/favicon.ico"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="icon"][type="image/svg+xml"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="apple-touch-icon"]')).toHaveAttribute("href", "/apple-touch-icon.png");
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0])); // ICO header
  const touch = await request.get("/apple-touch-icon.png");
  expect(touch.headers()["content-type"]).toBe("image/png");
  const png = await touch.body();
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([180, 180]);
});

test(
  "/privacy says what is collected, why, where and how long it is kept, who receives it, the rights and whom to ask",
  { tag: "@once" },
  async ({ page, browser, javaScriptEnabled }) => {
    const response = await page.goto("/privacy");
    expect(response?.status()).toBe(200);
    const main = page.getByRole("main");
    for (const heading of [
      "What we collect",
      "Why we collect it",
      "Who receives it",
      "Where it is kept, and for how long",
      "Your rights",
      "Our information officer",
    ]) {
      await expect(main.getByRole("heading", { level: 2, name: heading })).toBeVisible();
    }
    await expect(main).toContainText("30 days");
    await expect(main).toContainText("Web3Forms");
    await expect(main).toContainText(/refuses a message, it stays on our server until/);
    await expect(main.getByRole("link", { name: "privacy@kopanodigital.co.za" })).toHaveAttribute("href", "mailto:privacy@kopanodigital.co.za");
    await expect(page).toHaveTitle(/Privacy notice \|/);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", /\/privacy$/);
    expect(await seriousViolations(page, browser, javaScriptEnabled)).toEqual([]);
    const sitemap = await (await page.request.get("/sitemap.xml")).text();
    expect(sitemap).toContain("/privacy</loc>");
  },
);

test("the home page describes the agency in JSON-LD, and the CSP neither blocks nor reports it", async ({ page, javaScriptEnabled }) => {
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  if (javaScriptEnabled) {
    await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`)));
  }
  const response = await page.goto("/");
  expect(response?.headers()["content-security-policy"]).toMatch(/script-src/);
  const blocks = page.locator('script[type="application/ld+json"]');
  await expect(blocks).toHaveCount(1);
  const data = JSON.parse((await blocks.textContent())!) as Record<string, unknown>;
  expect(data).toMatchObject({
    "@context": "https://schema.org",
    "@type": "ProfessionalService",
    name: "Kopano Digital",
    url: "https://www.kopanodigital.co.za/",
    email: "hello@kopanodigital.co.za",
    telephone: "+27104462817",
    address: { "@type": "PostalAddress", addressLocality: "Johannesburg", addressCountry: "ZA" },
    sameAs: ["https://www.linkedin.com/company/kopano-digital"],
  });
  expect(data.logo).toMatch(/^https:\/\/www\.kopanodigital\.co\.za\/.+\.png$/);
  expect((data.areaServed as { name: string }[]).map((a) => a.name)).toContain("Johannesburg");
  // The logo it names is served.
  expect((await page.request.get(new URL(data.logo as string).pathname)).status()).toBe(200);
  await page.waitForLoadState("load");
  expect(problems).toEqual([]);
  // Only the home page carries it.
  await page.goto("/about");
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0);
});

// Measured with the browser's layout-shift entries, which need script access.
test("the home page does not shift as it loads, the hero's visual included (1280 px)", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  await page.waitForLoadState("load");
  await expect.poll(() => page.locator(".hero-visual").evaluate((img: HTMLImageElement) => img.complete)).toBe(true);
  const shift = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let total = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!e.hadRecentInput) total += e.value;
        }).observe({ type: "layout-shift", buffered: true });
        setTimeout(() => resolve(total), 500);
      }),
  );
  expect(shift).toBe(0);
});

// CSS alone: the same with JavaScript on or off.
test.describe("print and dark styles", { tag: "@once" }, () => {
  for (const width of WIDTHS) {
    test(`print: no navigation, no buttons, black on white; the estimate prints (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/");
      const wizard = page.locator("#calculator");
      await wizard.getByRole("button", { name: "Zoho Solutions" }).click();
      await wizard.getByRole("button", { name: "Urgent (1-2 weeks)" }).click();
      await page.emulateMedia({ media: "print" });
      await expect(page.locator(".site-header")).toBeHidden();
      await expect(page.getByRole("contentinfo").getByRole("navigation")).toBeHidden();
      await expect(page.locator("#contact form")).toBeHidden();
      await expect(wizard.getByRole("button", { name: "Back" })).toBeHidden();
      await expect(wizard.locator(".estimate")).toBeVisible();
      await expect(wizard.locator(".estimate")).toContainText("$3,000");
      expect(await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual([
        "rgb(255, 255, 255)",
        "rgb(0, 0, 0)",
      ]);
      expect(await page.locator(".hero h1").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(0, 0, 0)");
      await forTheEye(page, `print-home-${width}`, { fullPage: true });
      await page.goto("/work");
      await expect(page.locator(".filter")).toBeHidden();
      await expect(page.locator("article.project-card").first()).toBeVisible();
      await forTheEye(page, `print-work-${width}`, { fullPage: true });
    });

    // Every page at the widest layout, the home page at every width (the colours do not change
    // with the width; the layouts do): the scheme's surfaces and text, and axe.
    for (const path of width === 1280 ? PAGES : ["/"]) {
      test(`dark scheme: ${path} has dark surfaces and light text, and axe finds nothing serious (${width} px)`, async ({ page, browser }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: "dark" });
        await page.goto(path);
        const [bg, ink] = await page.locator("body").evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
        expect(bg).toBe("rgb(18, 17, 42)");
        expect(ink).toBe("rgb(236, 235, 255)");
        expect(await seriousViolations(page, browser, true)).toEqual([]);
      });
    }

    test(`every page in the dark scheme (${width} px)`, { tag: "@for-the-eye" }, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: "dark" });
      for (const path of PAGES) {
        await page.goto(path);
        await forTheEye(page, `dark${path === "/" ? "-home" : path.replace("/", "-")}-${width}`, { fullPage: true });
      }
    });
  }
});

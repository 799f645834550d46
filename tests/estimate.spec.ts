/**
 * An estimate a visitor keeps: its own page (`/estimate?service=…&timeframe=…&complexity=…`),
 * the same for everyone with the same choices, in US dollars and one A4 page in print; step 5,
 * which prints as it and links to it with the three choices and nothing the visitor typed; the
 * page's button that starts a request; the booking offer, only on a site with BOOKING_URL; and
 * the largest figure on a small phone. The thanks' own link is calculator-step-5.spec.ts's.
 */
import type { Locator, Page } from "@playwright/test";
import { breakdownText } from "../app/content/breakdown";
import { calculatorText } from "../app/content/calculator";
import { estimateText } from "../app/content/estimate";
import { site } from "../app/content/site";
import { wcagViolations } from "./support/axe";
import { A4, expect, newClient, pdfPages, test } from "./support/fixtures";
import { atStep5, breakdownRows, calculator, postsOf, priceOf, progress } from "./support/wizard";

const ESTIMATE = "/estimate?service=softwareDev&timeframe=urgent&complexity=complex";
const choices = { service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "A dispatch app for 40 drivers" };
/** The estimate's page the button tests start from. */
const simpleAi = { service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)", complexity: "Simple" };

/** Step 5 with the choices above, and the visitor's details typed in. */
async function detailsTyped(page: Page, siteUrl = "", company = "Gauteng Freight") {
  await atStep5(page, choices, { site: siteUrl });
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill("ops@gautengfreight.co.za");
  await calc.getByLabel("Phone").fill("+27 11 555 0101");
}

/** Each figure of the text is preceded by "USD" (written out here, not by the formatter under test), and no "$" is left. */
async function namesTheCurrency(where: Locator, figures: string[]) {
  const text = (await where.innerText()).replace(/\s+/g, " ");
  expect(text).not.toContain("$");
  for (const figure of figures) expect(text).toContain(`USD ${figure}`);
}

test("step 5 prints as its estimate and links to its page, which says all of it in USD, on one A4 page", async ({ page }) => {
  await detailsTyped(page);
  const calc = calculator(page);
  // The home page at step 5, printed: one A4 page with the breakdown, the answers and the estimate's address.
  expect(pdfPages(await page.pdf(A4))).toBe(1);
  await page.emulateMedia({ media: "print" });
  for (const hidden of [
    page.locator(".hero"),
    page.locator("#services"),
    page.locator("#contact"),
    calc.getByLabel("Email"),
    calc.getByRole("button", { name: "Change service" }),
  ])
    await expect(hidden).toBeHidden();
  await expect(calc.locator("tfoot")).toContainText(priceOf(choices));
  await expect(calc.getByRole("region", { name: calculatorText.summaryTitle })).toBeVisible();
  const link = calc.getByRole("link", { name: calculatorText.keepLink });
  await expect(link).toBeVisible();
  await page.emulateMedia({ media: null });
  // The three choices and nothing typed.
  await expect(link).toHaveAttribute("href", ESTIMATE);
  await link.click();
  await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe(ESTIMATE);

  const sheet = page.locator("main");
  await expect(sheet.getByRole("heading", { level: 1 })).toHaveText(`Estimate: ${priceOf(choices)}`);
  await expect(sheet.getByText(site.name, { exact: true })).toBeVisible();
  await expect(sheet.getByRole("link", { name: site.email })).toHaveAttribute("href", `mailto:${site.email}`);
  await expect(sheet.getByRole("link", { name: site.phone })).toHaveAttribute("href", site.phoneHref);
  await expect(sheet.getByRole("region", { name: estimateText.choicesTitle }).locator("dd")).toHaveText([
    choices.service,
    choices.timeframe,
    choices.complexity,
  ]);
  await expect(sheet.getByRole("table", { name: breakdownText.caption }).getByRole("row")).toHaveText(breakdownRows(choices));
  for (const part of [estimateText.covers, estimateText.excludes])
    await expect(sheet.getByRole("region", { name: part.heading }).getByRole("listitem")).toHaveText([...part.items]);
  await expect(sheet.getByRole("region", { name: estimateText.stands.heading })).toContainText(estimateText.stands.text);
  await expect(sheet.getByRole("button")).toHaveText([estimateText.start]);
  await expect(page).toHaveTitle(/^Estimate: USD\s5,625 /);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /= USD\s5,625\./);
  await namesTheCurrency(sheet, ["2,500", "5,625"]);

  expect(pdfPages(await page.pdf(A4))).toBe(1);
  await page.emulateMedia({ media: "print" });
  for (const hidden of [page.locator(".site-header"), page.locator(".site-footer"), page.locator("main form"), page.getByRole("button")])
    await expect(hidden.first()).toBeHidden();
  await expect(sheet.getByText(site.email)).toBeVisible();
  await expect(page.getByRole("table", { name: breakdownText.caption })).toBeVisible();
  await namesTheCurrency(sheet, ["2,500", "5,625"]);
  // The count is of pages, not a constant: a long page makes several.
  await page.goto("/privacy");
  expect(pdfPages(await page.pdf(A4))).toBeGreaterThan(1);
});

test("the page's button starts a request with its answers at step 4, with JavaScript in the browser", async ({ page, context, javaScriptEnabled }) => {
  await page.goto("/estimate?service=ai&timeframe=relaxed&complexity=simple");
  const posts = postsOf(page);
  await page.getByRole("button", { name: estimateText.start }).click();
  const calc = calculator(page);
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.locator(".estimate")).toContainText(priceOf(simpleAi));
  if (javaScriptEnabled) {
    await expect(page).toHaveURL(/\/\?step=4#wizard$/);
    await expect(calc.getByRole("heading", { name: calculatorText.headings[4] })).toBeFocused();
  }
  await calc.getByLabel("Project description").fill("Invoice capture for a practice of 12");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Simple", "Invoice capture for a practice of 12"]);
  await expect(calc.locator("tfoot")).toContainText(priceOf(simpleAi));
  if (!javaScriptEnabled) return;
  await expect(page).toHaveURL(/\/\?step=5#wizard$/);
  await page.goBack();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue("Invoice capture for a practice of 12");
  await expect(calc.locator(".estimate")).toContainText(priceOf(simpleAi));
  expect(posts.forms).toEqual([]);
  // The funnel's beacons only: steps 2-4 reached at once (the estimate's three answers), then 5.
  await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
  expect((await context.cookies()).map((c) => c.name)).not.toContain("visit");
});

test("the largest figure's estimate keeps to 320 px, dark, and axe finds nothing", { tag: "@once" }, async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/estimate?service=mobileApp&timeframe=urgent&complexity=complex");
  // The figure on one line, under "Estimate:" if need be, never split after "USD"; step 5's is layout.spec.ts's.
  const figure = await page
    .getByRole("heading", { level: 1 })
    .getByText(/USD\s11,250/)
    .boundingBox();
  expect(figure!.height).toBeLessThan(60);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  expect(await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(18, 17, 42)");
  expect(await wcagViolations(page)).toEqual([]);
});

// HTTP: the same with JavaScript on or off.
test.describe("an estimate's page over HTTP", { tag: "@once" }, () => {
  test("the same bytes for everyone, public, an ETag; noindex, named by its figure; rendered", async ({ page, playwright, baseURL, request }) => {
    const visitor = (headers: Record<string, string>) =>
      playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": newClient(), ...headers } });
    const one = await visitor({});
    const other = await visitor({ Cookie: "visit=AAAAAAAAAAAAAAAAAAAAAA", "Accept-Language": "zu-ZA" });
    const first = await one.get(ESTIMATE);
    const second = await other.get("/estimate?complexity=complex&utm_source=whatsapp&timeframe=urgent&service=softwareDev");
    expect([first.status(), second.status()]).toEqual([200, 200]);
    expect(await second.body()).toEqual(await first.body());
    expect(second.headers()["etag"]).toBe(first.headers()["etag"]);
    expect(first.headers()["cache-control"]).toMatch(/^public, /);
    expect(first.headers()["set-cookie"]).toBeUndefined();
    expect((await other.get(ESTIMATE, { headers: { "If-None-Match": first.headers()["etag"]! } })).status()).toBe(304);
    // Rendered as a page renders: the breakdown once in the HTML; the loader hands the page its choices and its path.
    expect((await first.text()).split(breakdownText.caption).length - 1).toBe(1);
    await one.dispose();
    await other.dispose();
    expect(Object.keys(await (await request.get(`${ESTIMATE}&_data=routes%2Festimate`)).json())).toEqual(["choices", "path"]);
    expect(await (await request.get("/sitemap.xml")).text()).not.toContain("/estimate");

    await page.goto(ESTIMATE);
    const title = `Estimate: ${priceOf(choices)} — Software Development, urgent, complex | ${site.name}`;
    await expect(page).toHaveTitle(title);
    const meta = (attribute: string, name: string) => page.locator(`meta[${attribute}="${name}"]`);
    await expect(meta("name", "robots")).toHaveAttribute("content", "noindex");
    await expect(meta("property", "og:title")).toHaveAttribute("content", title);
    await expect(meta("name", "twitter:title")).toHaveAttribute("content", title);
    for (const [attribute, name] of [
      ["property", "og:description"],
      ["name", "twitter:description"],
      ["name", "description"],
    ] as const) {
      const content = await meta(attribute, name).getAttribute("content");
      expect(content).toMatch(/^Software Development, Urgent \(1-2 weeks\), Complex: /);
      expect(content).toContain(`= ${priceOf(choices)}. `);
    }
    await expect(meta("property", "og:url")).toHaveAttribute("content", new URL(ESTIMATE, site.url).href);
    await expect(meta("name", "twitter:card")).toHaveAttribute("content", "summary_large_image");
  });

  test("anything but three known choices is a 404 that repeats nothing of the address", async ({ request }) => {
    for (const query of [
      "",
      "service=softwareDev&timeframe=urgent",
      "service=%3Cb%3EMallory%3C%2Fb%3E&timeframe=urgent&complexity=complex",
      "service=softwareDev&timeframe=urgent&complexity=complex-ish&email=mallory%40evil.example",
    ]) {
      const answer = await request.get(`/estimate?${query}`);
      expect(answer.status(), query).toBe(404);
      expect(answer.headers()["cache-control"]).toBe("private, no-store");
      const body = await answer.text();
      for (const echo of ["Mallory", "mallory@evil.example", "complex-ish"]) expect(body).not.toContain(echo);
    }
  });
});

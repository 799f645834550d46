/**
 * An estimate a visitor keeps: its own page (`/estimate?service=…&timeframe=…&complexity=…`),
 * the same for everyone with the same choices and one A4 page in print; the links to it from
 * step 5 and the thanks, which carry the three choices and nothing the visitor typed; the thanks'
 * line on what was sent; and the booking offer, only on a site with BOOKING_URL.
 */
import type { Page } from "@playwright/test";
import { breakdownText } from "../app/content/breakdown";
import { calculatorText, sentSummary } from "../app/content/calculator";
import { estimateText } from "../app/content/estimate";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { seriousViolations } from "./support/axe";
import { expect, newClient, test } from "./support/fixtures";
import { sites } from "./support/sites";
import { atStep5, breakdownRows, calculator, postsOf, priceOf, progress } from "./support/wizard";

const ESTIMATE = "/estimate?service=softwareDev&timeframe=urgent&complexity=complex";
const choices = { service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "A dispatch app for 40 drivers" };
const details = { company: "Gauteng Freight", email: "ops@gautengfreight.co.za", phone: "+27 11 555 0101" };
/** The estimate's page the button tests start from. */
const simpleAi = { service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)", complexity: "Simple" };

/** Pages in a PDF that Chromium made: its page objects (`/Type /Page`, not the `/Pages` tree). */
const pdfPages = (pdf: Buffer) => (pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
/** A4 with the margins a browser's print dialog leaves by default (about 10 mm; page.pdf's own are 0). */
const A4 = { format: "A4", margin: { top: "10mm", right: "10mm", bottom: "10mm", left: "10mm" } } as const;

/** Step 5 with the choices above, and the visitor's details typed in. */
async function detailsTyped(page: Page, siteUrl = "", company = details.company) {
  await atStep5(page, choices, { site: siteUrl });
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill(details.email);
  await calc.getByLabel("Phone").fill(details.phone);
}

/** Sent from step 5 with these choices; answers the reference the thanks show. */
async function sent(page: Page, siteUrl: string, company: string): Promise<string> {
  await detailsTyped(page, siteUrl, company);
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  const reference = calculator(page).locator(".reference");
  await expect(reference).toHaveText(/^\d{8}-[0-9A-Z]{8}$/);
  return (await reference.textContent())!;
}

test("an estimate's page holds the agency, the answers, the breakdown, what it covers and not and how long it stands, and one button", async ({ page }) => {
  await page.goto(ESTIMATE);
  const sheet = page.locator("main");
  await expect(sheet.getByRole("heading", { level: 1 })).toHaveText(`Estimate: ${priceOf(choices)}`);
  await expect(sheet.getByText(site.name, { exact: true })).toBeVisible();
  await expect(sheet.getByRole("link", { name: site.email })).toHaveAttribute("href", `mailto:${site.email}`);
  await expect(sheet.getByRole("link", { name: site.phone })).toHaveAttribute("href", site.phoneHref);
  const answers = sheet.getByRole("region", { name: estimateText.choicesTitle });
  await expect(answers.locator("dd")).toHaveText([choices.service, choices.timeframe, choices.complexity]);
  await expect(sheet.getByRole("table", { name: breakdownText.caption }).getByRole("row")).toHaveText(breakdownRows(choices));
  for (const part of [estimateText.covers, estimateText.excludes]) {
    await expect(sheet.getByRole("region", { name: part.heading }).getByRole("listitem")).toHaveText([...part.items]);
  }
  await expect(sheet.getByRole("region", { name: estimateText.stands.heading })).toContainText(estimateText.stands.text);
  await expect(sheet.getByRole("button")).toHaveText([estimateText.start]);
  // axe: accessibility.spec.ts checks this estimate's page in both projects, schemes and two widths.
});

test("the button starts a request with the three answers chosen: step 4, then step 5 with the same estimate", async ({ page }) => {
  await page.goto("/estimate?service=ai&timeframe=relaxed&complexity=simple");
  await page.getByRole("button", { name: estimateText.start }).click();
  const calc = calculator(page);
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.locator(".estimate")).toContainText(priceOf(simpleAi));
  await calc.getByLabel("Project description").fill("Invoice capture for a practice of 12");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Simple", "Invoice capture for a practice of 12"]);
  await expect(calc.locator("tfoot")).toContainText(priceOf(simpleAi));
});

test(
  "with JavaScript the button takes its step in the browser, as Estimate This does: nothing sent, no cookie, and Back from step 5 keeps the description",
  { tag: "@needs-js" },
  async ({ page, context }) => {
    await page.goto("/estimate?service=ai&timeframe=relaxed&complexity=simple");
    const posts = postsOf(page);
    await page.getByRole("button", { name: estimateText.start }).click();
    const calc = calculator(page);
    await expect(page).toHaveURL(/\/\?step=4#wizard$/);
    await expect(calc.getByRole("heading", { name: calculatorText.headings[4] })).toBeFocused();
    await calc.getByLabel("Project description").fill("Invoice capture for a practice of 12");
    await calc.getByRole("button", { name: "Continue" }).click();
    await expect(page).toHaveURL(/\/\?step=5#wizard$/);
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calc.getByLabel("Project description")).toHaveValue("Invoice capture for a practice of 12");
    await expect(calc.locator(".estimate")).toContainText(priceOf(simpleAi));
    expect(posts.forms).toEqual([]);
    // The funnel's beacons only: steps 2-4 reached at once (the estimate's three answers), then 5.
    await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
    expect((await context.cookies()).map((c) => c.name)).not.toContain("visit");
  },
);

test("step 5 links to the estimate's page with the three choices and nothing the visitor typed", async ({ page }) => {
  await detailsTyped(page);
  const link = calculator(page).getByRole("link", { name: calculatorText.keepLink });
  await expect(link).toHaveAttribute("href", ESTIMATE);
  await link.click();
  await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe(ESTIMATE);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Estimate: ${priceOf(choices)}`);
});

test("after a send the thanks keep the reference, a line on what was sent with its estimate's link, and offer no booking here", async ({
  page,
  formService,
}) => {
  await sent(page, "", `${details.company} ${formService.token}`);
  const calc = calculator(page);
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  const thanks = calc.locator(".wizard-sent");
  await expect(thanks).toContainText(sentSummary(`${choices.service}, ${choices.timeframe}, ${choices.complexity}`, priceOf(choices)));
  await expect(thanks.getByRole("link", { name: calculatorText.keepLink })).toHaveAttribute("href", ESTIMATE);
  // This site has no BOOKING_URL.
  await expect(page.getByRole("link", { name: calculatorText.bookCall })).toHaveCount(0);
  // The address says only which receipt; nothing of what was sent is in it.
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  await formService.settled();
});

test("with BOOKING_URL set, the thanks offer to book a call there, carrying the reference", async ({ page }) => {
  const reference = await sent(page, sites.outbox.url, `Booking ${newClient()}`);
  const calc = calculator(page);
  const booking = new URL((await calc.getByRole("link", { name: calculatorText.bookCall }).getAttribute("href"))!);
  expect(booking.origin + booking.pathname).toBe(sites.outbox.env.BOOKING_URL);
  expect(booking.searchParams.get("notes")).toBe(`Reference ${reference}`);
  expect(booking.searchParams.get("a1")).toBe(reference);
  // The privacy notice says where the reference goes; a site without a booking page says nothing of one.
  await page.goto(`${sites.outbox.url}/privacy`);
  await expect(page.locator("main")).toContainText(`book a call on ${new URL(sites.outbox.env.BOOKING_URL!).host}`);
  await page.goto("/privacy");
  await expect(page.getByRole("heading", { name: "If you book a call" })).toHaveCount(0);
});

// HTTP and print: the same with JavaScript on or off.
test.describe("an estimate's page over HTTP and on paper", { tag: "@once" }, () => {
  test("is the same bytes for everyone with the same choices, kept public, and its ETag answers 304", async ({ playwright, baseURL }) => {
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
    await one.dispose();
    await other.dispose();
  });

  test("says noindex, is named by its figure for link previews, and is left out of the sitemap", async ({ page, request }) => {
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
    expect(await (await request.get("/sitemap.xml")).text()).not.toContain("/estimate");
  });

  test("renders its breakdown as a page renders: once in the HTML, none of it in the data the browser hydrates from", async ({ request }) => {
    const html = await (await request.get(ESTIMATE)).text();
    expect(html.split(breakdownText.caption).length - 1).toBe(1);
    // The loader hands the page its choices and its path; the route renders the table from them.
    const data = await (await request.get(`${ESTIMATE}&_data=routes%2Festimate`)).json();
    expect(Object.keys(data)).toEqual(["choices", "path"]);
  });

  test("anything but three known choices is a 404 that repeats nothing of the address", async ({ request }) => {
    expect((await request.get(ESTIMATE)).status()).toBe(200);
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

  test("at 320 px in the dark scheme it fits the screen, and axe finds nothing serious", async ({ page, browser }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(ESTIMATE);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Estimate: ${priceOf(choices)}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(18, 17, 42)");
    expect(await seriousViolations(page, browser, true)).toEqual([]);
  });

  test("prints on one A4 page: the agency and the estimate, without navigation, footer, form or button", async ({ page }) => {
    await page.goto(ESTIMATE);
    expect(pdfPages(await page.pdf(A4))).toBe(1);
    await page.emulateMedia({ media: "print" });
    for (const hidden of [page.locator(".site-header"), page.locator(".site-footer"), page.locator("main form"), page.getByRole("button")]) {
      await expect(hidden.first()).toBeHidden();
    }
    await expect(page.locator("main").getByText(site.email)).toBeVisible();
    await expect(page.getByRole("table", { name: breakdownText.caption })).toBeVisible();
    // The count is of pages, not a constant: a long page makes several.
    await page.goto("/privacy");
    expect(pdfPages(await page.pdf(A4))).toBeGreaterThan(1);
  });

  test("the thanks print as the receipt: one A4 page with the reference, what was sent and its estimate's address, without the calculator's choices", async ({
    page,
    formService,
  }) => {
    await sent(page, "", `${details.company} ${formService.token}`);
    const calc = calculator(page);
    expect(pdfPages(await page.pdf(A4))).toBe(1);
    await page.emulateMedia({ media: "print" });
    for (const hidden of [page.locator(".hero"), page.locator("#services"), page.locator("#contact"), calc.getByRole("button", { name: choices.service })]) {
      await expect(hidden).toBeHidden();
    }
    await expect(calc.locator(".reference")).toBeVisible();
    await expect(calc.locator(".wizard-sent")).toContainText(sentSummary(`${choices.service}, ${choices.timeframe}, ${choices.complexity}`, priceOf(choices)));
    const link = calc.getByRole("link", { name: calculatorText.keepLink });
    expect(await link.evaluate((a) => getComputedStyle(a, "::after").content)).toContain(ESTIMATE);
    await formService.settled();
  });

  test("the home page at step 5 prints as its estimate: one A4 page with the breakdown, the answers and the estimate's address", async ({ page }) => {
    await detailsTyped(page);
    expect(pdfPages(await page.pdf(A4))).toBe(1);
    await page.emulateMedia({ media: "print" });
    const calc = calculator(page);
    for (const hidden of [
      page.locator(".hero"),
      page.locator("#services"),
      page.locator("#contact"),
      calc.getByLabel("Email"),
      calc.getByRole("button", { name: "Change service" }),
    ]) {
      await expect(hidden).toBeHidden();
    }
    await expect(calc.locator("tfoot")).toContainText(priceOf(choices));
    await expect(calc.getByRole("region", { name: calculatorText.summaryTitle })).toBeVisible();
    await expect(calc.getByRole("link", { name: calculatorText.keepLink })).toBeVisible();
  });
});

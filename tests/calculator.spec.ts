/**
 * The calculator's send end to end and an estimate's own page, with JavaScript on and off. Figures
 * are written out (2,500 × 1.5 × 1.5 = 5,625), not made by the formatter under test.
 */
import { readFile } from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { breakdownText } from "../app/content/breakdown";
import { calculatorText, nextSteps, sentSummary, talkNow } from "../app/content/calculator";
import { estimateText } from "../app/content/estimate";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { wcagViolations } from "./support/axe";
import { A4, expect, forTheEye, pdfPages, test } from "./support/fixtures";
import { sites, TEST_ACCESS_KEY } from "./support/sites";
import {
  atStep5,
  breakdownRows,
  calculator,
  contactForm,
  dispatchApp,
  expectValues,
  fillDetails,
  fillValues,
  postsOf,
  priceOf,
  progress,
  sendRequest,
  WIZARD_VIEWPORTS,
} from "./support/wizard";

const order = {
  ...dispatchApp,
  description: "A dispatch app for 40 drivers,\nwith proof of delivery photos.",
  name: "Thandi Nkosi",
  company: "Gauteng Freight (Pty) Ltd",
  email: "ops@gautengfreight.co.za",
  phone: "+27 11 555 0101",
};
// One combination end to end; every price in the table is app/calculator/pricing.test.ts's.
const price = priceOf(order);
const ESTIMATE = "/estimate?service=softwareDev&timeframe=urgent&complexity=complex";

/** Step 5 with the order's choices and its details typed in, the company carrying `token` (`site`: see atStep5). */
async function upToDetails(page: Page, token = "", { site = "", name = order.name } = {}) {
  await atStep5(page, order, { site });
  await fillDetails(page, { ...order, name, company: `${order.company} ${token}`.trim() });
  return calculator(page);
}
/** Each figure of the text (digits with thousands commas) is preceded by "USD", and no "$" is left. */
async function namesTheCurrency(where: Locator, figures: string[]) {
  const text = (await where.innerText()).replace(/\s+/g, " ");
  expect(text).not.toContain("$");
  for (const figure of figures) expect(text).toContain(`USD ${figure}`);
}

test(`the wizard sends ${order.service} / ${order.timeframe} / ${order.complexity} at ${price}, once`, async ({ page, formService, javaScriptEnabled }) => {
  await atStep5(page, order);
  const calc = calculator(page);
  await expect(calc.locator(".estimate")).toContainText(price);
  await namesTheCurrency(calc.getByRole("table"), ["2,500", "5,625"]);
  // No rand rate set here (the outbox's site has one): dollars alone.
  await expect(calc).not.toContainText("to the dollar");
  const company = `${order.company} ${formService.token}`;
  await fillDetails(page, { ...order, company });
  const reference = await sendRequest(page);
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  await expect(progress(page)).toHaveText("Step 1 of 5");
  const thanks = calc.locator(".wizard-sent");
  const summary = sentSummary(`${order.service}, ${order.timeframe}, ${order.complexity}`, price);
  await expect(thanks).toContainText(summary);
  await namesTheCurrency(thanks, ["5,625"]);
  const keep = thanks.getByRole("link", { name: calculatorText.keepLink });
  // The estimate's page with the receipt: this browser's own page of the request (calculator-drafts-and-receipts.spec.ts).
  await expect(keep).toHaveAttribute("href", new RegExp(`^${ESTIMATE.replaceAll("?", "\\?")}&receipt=[\\w-]{22}$`));
  // This site has no BOOKING_URL (the outbox's, below, has one): what happens next and when, then the phone and email, right there.
  await expect(page.getByRole("link", { name: calculatorText.bookCall })).toHaveCount(0);
  await expect(thanks).toContainText(`${nextSteps} ${talkNow}`);
  const [email, phone] = [thanks.getByRole("link", { name: site.email }), thanks.getByRole("link", { name: site.phone })];
  await expect(phone).toHaveAttribute("href", site.phoneHref);
  await expect(email).toHaveAttribute("href", `mailto:${site.email}`);
  // The address holds a receipt's id, never the reference or anything sent (calculator-drafts-and-receipts.spec.ts).
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  if (javaScriptEnabled) {
    // Focus is moved by script: to the thanks, then Tab reaches the estimate's link, the email and phone, and the restarted wizard.
    await expect(thanks).toBeFocused();
    for (const next of [keep, email, phone, calc.getByRole("button", { name: order.service, exact: true })]) {
      await page.keyboard.press("Tab");
      await expect(next).toBeFocused();
    }
    expect(await wcagViolations(page)).toEqual([]);
  }

  const [payload] = (await formService.settled()) as Record<string, string>[];
  // The sender is the company name entered (the specification's from_name); the person's name is in the message.
  expect(payload).toMatchObject({ access_key: TEST_ACCESS_KEY, to: site.email, from_name: company, subject: `New cost estimate request from ${company}` });
  for (const line of [
    `Service: ${order.service}\nTimeframe: ${order.timeframe}\nComplexity: ${order.complexity}\nDescription: A dispatch app for 40 drivers,`,
    "with proof of delivery photos.",
    `Estimated cost: ${price}\nName: ${order.name}\nCompany: ${company}\nEmail: ${order.email}\nPhone: ${order.phone}`,
  ])
    expect(payload!.message).toContain(line);
  expect(payload!.message).toMatch(/^Estimated cost: USD\s5,625$/m);
  expect(payload!.message).not.toContain("about R");
  expect(payload!.message).not.toContain("$");
  expect(payload!.message).toMatch(new RegExp(`\\nReference: ${reference}$`));

  // Printed: one A4 page with the reference, what was sent and its estimate's address, without the calculator's choices.
  expect(pdfPages(await page.pdf(A4))).toBe(1);
  await page.emulateMedia({ media: "print" });
  for (const hidden of [page.locator(".hero"), page.locator("#services"), page.locator("#contact"), calc.getByRole("button", { name: order.service })])
    await expect(hidden).toBeHidden();
  await expect(calc.locator(".reference")).toBeVisible();
  await expect(thanks).toContainText(summary);
  expect(await keep.evaluate((a) => getComputedStyle(a, "::after").content)).toContain(ESTIMATE);
  await page.emulateMedia({ media: null });
  await page.reload();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  expect(await formService.settled()).toHaveLength(1);
});

test("step 5 explains the estimate; Change keeps what was typed; the wizard then starts over", async ({ page, formService, javaScriptEnabled }) => {
  const company = `Gauteng Freight ${formService.token}`;
  await atStep5(page, dispatchApp);
  const calc = calculator(page);
  await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeVisible();
  await expect(calc.getByText(calculatorText.detailsIntro)).toBeVisible();
  // A name is asked for, so the reply can greet someone, but not required (the other three fields are).
  const name = calc.getByLabel("Your name (optional)");
  await expect(name).toHaveAttribute("autocomplete", "name");
  // No box cuts what is typed (decision 0044): the check says how long a name may be.
  await expect(name).not.toHaveAttribute("maxlength");
  await expect(name).not.toHaveAttribute("required");
  for (const label of ["Company name", "Email", "Phone"]) await expect(calc.getByLabel(label)).toHaveAttribute("required");
  await expect(calc.getByRole("table", { name: breakdownText.caption }).getByRole("row")).toHaveText(breakdownRows(dispatchApp));
  const summary = calc.getByRole("region", { name: calculatorText.summaryTitle });
  await expect(summary.locator("dt")).toHaveText(["Service", "Timeframe", "Complexity", "Project description"]);
  await expect(summary.locator(".summary-value")).toHaveText([dispatchApp.service, dispatchApp.timeframe, dispatchApp.complexity, dispatchApp.description]);
  for (const what of ["service", "timeframe", "complexity", "description"]) await expect(summary.getByRole("button", { name: `Change ${what}` })).toBeVisible();
  await expect(calc.getByRole("link", { name: "How we handle your data" })).toHaveAttribute("href", "/privacy");
  await fillDetails(page, { company, email: "ops@gautengfreight.co.za", phone: "+27 11 555 0101" });
  /** At the step; with JavaScript, focus on its heading (moved by script). */
  const at = async (step: 1 | 2 | 4 | 5) => {
    await expect(progress(page)).toHaveText(`Step ${step} of 5`);
    if (javaScriptEnabled) await expect(calc.getByRole("heading", { name: calculatorText.headings[step] })).toBeFocused();
  };
  await calc.getByRole("button", { name: "Change timeframe" }).click();
  await at(2);
  await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
  await at(5);
  await expect(calc.getByLabel("Company name")).toHaveValue(company);
  await expect(calc.locator("tfoot")).toContainText(priceOf({ ...dispatchApp, timeframe: "Relaxed (5-8 weeks)" }));
  await calc.getByRole("button", { name: "Change description" }).click();
  await at(4);
  await expect(calc.getByLabel("Project description")).toHaveValue(dispatchApp.description);
  await calc.getByLabel("Project description").fill("Route planning for 12 vans");
  await calc.getByRole("button", { name: "Continue" }).click();
  await at(5);
  const changed = { service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)", complexity: dispatchApp.complexity };
  await calc.getByRole("button", { name: "Change service" }).click();
  await at(1);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await at(5);
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Complex", "Route planning for 12 vans"]);
  await expect(calc.locator("tfoot")).toContainText(priceOf(changed));
  await expect(calc.getByLabel("Email")).toHaveValue("ops@gautengfreight.co.za");
  const reference = await sendRequest(page);
  await expect(calc.getByText(nextSteps)).toBeVisible();
  const [payload] = (await formService.settled()) as Record<string, string>[];
  for (const line of [
    "Service: AI Solutions",
    "Timeframe: Relaxed (5-8 weeks)",
    "Description: Route planning for 12 vans",
    `Estimated cost: ${priceOf(changed)}`,
    `Company: ${company}`,
  ])
    expect(payload!.message).toContain(line);
  expect(payload!.message).toMatch(new RegExp(`\\nReference: ${reference}$`));

  // The wizard starts over: every field cleared, complexity back to Medium, the description optional.
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
  await expect(calc.getByRole("button", { name: "Medium" })).toHaveAttribute("aria-current", "true");
  await expect(calc.getByRole("button", { name: "Complex" })).not.toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Medium" }).click();
  const description = calc.getByLabel("Project description (optional)");
  await expect(description).toHaveValue("");
  await expect(description).not.toHaveAttribute("required");
  await expect(description).toHaveAccessibleDescription(`${calculatorText.descriptionHint} ${calculatorText.descriptionBound}`);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Standard (3-4 weeks)", "Medium", calculatorText.noDescription]);
  for (const label of ["Your name (optional)", "Company name", "Email", "Phone"]) await expect(calc.getByLabel(label)).toHaveValue("");
  await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions", timeframe: "Standard (3-4 weeks)", complexity: "Medium" }));
});

test("Back keeps all that was chosen and typed; step 5 prints as its estimate and links to its page, in USD, one A4 page", async ({
  page,
  javaScriptEnabled,
}) => {
  const calc = await upToDetails(page);
  const back = () => calc.getByRole("button", { name: "Back" }).click();
  await back();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue(order.description);
  for (const [i, chosen] of [order.complexity, order.timeframe, order.service].entries()) {
    await back();
    await expect(progress(page)).toHaveText(`Step ${3 - i} of 5`);
    await expect(calc.getByRole("button", { name: chosen })).toHaveAttribute("aria-current", "true");
  }
  await expect(calc.getByRole("button", { name: "Back" })).toHaveCount(0);
  for (const choice of [order.service, order.timeframe, order.complexity, "Continue"]) await calc.getByRole("button", { name: choice }).click();
  await expectValues(calc, { "Your name (optional)": order.name, "Company name": order.company, Phone: order.phone });

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
  await expect(calc.locator("tfoot")).toContainText(price);
  await expect(calc.getByRole("region", { name: calculatorText.summaryTitle })).toBeVisible();
  const link = calc.getByRole("link", { name: calculatorText.keepLink });
  await expect(link).toBeVisible();
  await page.emulateMedia({ media: null });
  // The three choices and nothing typed.
  await expect(link).toHaveAttribute("href", ESTIMATE);
  await link.click();
  await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe(ESTIMATE);

  const sheet = page.locator("main");
  await expect(sheet.getByRole("heading", { level: 1 })).toHaveText(`Estimate: ${price}`);
  await expect(sheet.getByText(site.name, { exact: true })).toBeVisible();
  await expect(sheet.getByRole("link", { name: site.email })).toHaveAttribute("href", `mailto:${site.email}`);
  await expect(sheet.getByRole("link", { name: site.phone })).toHaveAttribute("href", site.phoneHref);
  await expect(sheet.getByRole("region", { name: estimateText.choicesTitle }).locator("dd")).toHaveText([order.service, order.timeframe, order.complexity]);
  await expect(sheet.getByRole("table", { name: breakdownText.caption }).getByRole("row")).toHaveText(breakdownRows(order));
  for (const part of [estimateText.covers, estimateText.excludes])
    await expect(sheet.getByRole("region", { name: part.heading }).getByRole("listitem")).toHaveText([...part.items]);
  await expect(sheet.getByRole("region", { name: estimateText.stands.heading })).toContainText(estimateText.stands.text);
  await expect(sheet.getByRole("button")).toHaveText([estimateText.start]);
  await namesTheCurrency(sheet, ["2,500", "5,625"]);

  expect(pdfPages(await page.pdf(A4))).toBe(1);
  await page.emulateMedia({ media: "print" });
  for (const hidden of [page.locator(".site-header"), page.locator(".site-footer"), page.locator("main form"), page.getByRole("button")])
    await expect(hidden.first()).toBeHidden();
  await expect(sheet.getByText(site.email)).toBeVisible();
  await expect(page.getByRole("table", { name: breakdownText.caption })).toBeVisible();
  await namesTheCurrency(sheet, ["2,500", "5,625"]);
  await page.emulateMedia({ media: null });
  if (javaScriptEnabled) {
    // What was typed on step 5 stays through Back from its estimate and a reload, kept in the tab.
    for (const back of [() => page.goBack(), () => page.reload()]) {
      await back();
      await expect(page).toHaveURL(/\/\?step=5#wizard$/);
      await expect(progress(page)).toHaveText("Step 5 of 5");
      await expectValues(calc, { "Your name (optional)": order.name, "Company name": order.company, Email: order.email, Phone: order.phone });
    }
    await expect(calc.locator(".estimate")).toContainText(price);
    expect(decodeURIComponent(page.url())).not.toContain(order.email);
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByLabel("Project description")).toHaveValue(order.description);
  }
  // The count is of pages, not a constant: a long page makes several.
  await page.goto("/privacy");
  expect(pdfPages(await page.pdf(A4))).toBeGreaterThan(1);
});

// A failing form service is server/leads/*.test.ts's and tests/ops/lead-delivery.spec.ts's.
test("a lead or message that cannot be stored: the failure text, everything kept, a reload too", async ({ page, javaScriptEnabled }) => {
  const token = `Unstored ${test.info().project.name}`;
  const calc = await upToDetails(page, token, { site: sites.unwritable.url });
  const kept = async () => {
    await expect(progress(page)).toHaveText("Step 5 of 5");
    const details = { "Your name (optional)": order.name, "Company name": `${order.company} ${token}`, Email: order.email, Phone: order.phone };
    await expectValues(calc, details);
    await expect(calc.locator(".estimate")).toContainText(price);
  };
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("alert")).toHaveText(messages.calculatorFailed);
  await kept();
  if (javaScriptEnabled) {
    await expect(page).toHaveURL(/[?&]step=5#wizard$/);
    await page.reload();
    await kept();
  }
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(calc.getByLabel("Project description")).toHaveValue(order.description);

  // A mistake first: without JavaScript its page is a draft, which this server can still keep…
  const form = contactForm(page);
  const typed = { Name: "Lerato Mokoena", Email: "lerato@", Service: "seo", Message: "Keep me." };
  await fillValues(form, typed);
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  const id = /contact=([\w-]{22})/.exec(page.url())?.[1];
  expect(id === undefined).toBe(javaScriptEnabled);
  await form.getByLabel("Email").fill("lerato@mokoena.co.za");
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("alert")).toHaveText(messages.contactFailed);
  await expectValues(form, { ...typed, Email: "lerato@mokoena.co.za" });
  // …so the send that then goes through deletes it.
  if (id) await expect(form.locator('input[name="draft"]')).toHaveValue(id);
});

test("without a key a send lands in the outbox; with BOOKING_URL the thanks offer a call; with USD_ZAR_RATE every figure says its rand", async ({ page }) => {
  const token = `Outbox ${test.info().project.name} ${Date.now()}`;
  // 5,625 × 18.40 = 103,500; step 2's 2,500 × 18.40 = 46,000; both to the nearest R100.
  const rand = (figure: string) => `${figure} (about R ${figure === "USD 5,625" ? "103,500" : "46,000"} at R 18.40 to the dollar, 30 Nov 2026)`;
  await page.goto(`${sites.outbox.url}/#wizard`);
  await calculator(page).getByRole("button", { name: order.service, exact: true }).click();
  await expect(calculator(page).locator(".estimate")).toHaveText(`Estimate so far: ${rand("USD 2,500")}`);
  await upToDetails(page, token, { site: sites.outbox.url });
  // Step 5: the rand under the breakdown, by its total.
  await expect(calculator(page).locator("tfoot td")).toHaveText(price);
  await expect(calculator(page).locator(".estimate-parts + small")).toContainText(rand(price).slice(price.length + 1));
  const reference = await sendRequest(page);
  await expect(calculator(page).locator(".wizard-sent")).toContainText(`estimated at ${rand(price)}.`);
  const booking = new URL((await calculator(page).getByRole("link", { name: calculatorText.bookCall }).getAttribute("href"))!);
  expect(booking.origin + booking.pathname).toBe(sites.outbox.env.BOOKING_URL);
  expect([booking.searchParams.get("notes"), booking.searchParams.get("a1")]).toEqual([`Reference ${reference}`, reference]);
  // Stored first, then written to the outbox a moment later.
  const lines = async () => (await readFile(sites.outbox.env.OUTBOX_FILE!, "utf8").catch(() => "")).split("\n").filter(Boolean);
  const mine = async () => (await lines()).map((l) => JSON.parse(l) as Record<string, string>).filter((l) => l.from_name === `${order.company} ${token}`);
  await expect.poll(async () => (await mine()).length).toBe(1);
  const [lead] = await mine();
  expect(lead!.message).toContain(`\nEstimated cost: ${rand(price)}\n`);
  expect(JSON.stringify(lead)).not.toContain(TEST_ACCESS_KEY);
  // The estimate's page says its rand too, for everyone alike; its title and meta, dollars alone.
  await page.goto(`${sites.outbox.url}${ESTIMATE}`);
  await expect(page.locator(".estimate-parts + small")).toContainText(rand(price).slice(price.length + 1));
  await expect(page).toHaveTitle(/^Estimate: USD 5,625 — /);
  expect(await page.locator('meta[name="description"]').getAttribute("content")).not.toContain("about R");
  // The privacy notice says where the reference goes; a site without a booking page says nothing of one.
  await page.goto(`${sites.outbox.url}/privacy`);
  await expect(page.locator("main")).toContainText(`book a call on ${new URL(sites.outbox.env.BOOKING_URL!).host}`);
  await page.goto("/privacy");
  await expect(page.getByRole("heading", { name: "If you book a call" })).toHaveCount(0);
});

// With JavaScript a browser gets every kind of answer; a step page without it is fetched below.
test("the access key appears in no HTML or JavaScript the site serves", { tag: "@once" }, async ({ page, request, formService }) => {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    if (/html|javascript|json/.test(response.headers()["content-type"] ?? "")) bodies.push(await response.text().catch(() => ""));
  });
  for (const path of ["/", "/services", "/work", "/about", "/no-such-page"]) await page.goto(path);
  // Pages the actions render (errors, then a send) carry no key either.
  const calc = await upToDetails(page, formService.token);
  await calc.getByLabel("Email").fill("not-an-email");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  await calc.getByLabel("Email").fill(order.email);
  await sendRequest(page);
  // Every script the home page loads, whether or not this project runs them.
  const html = await (await request.get("/")).text();
  const srcs = new Set([...html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]!));
  expect(srcs.size).toBeGreaterThan(0);
  for (const src of srcs) bodies.push(await (await request.get(src)).text());
  const step = await request.post("/?index", { form: { formName: "calculator", "state.step": "1", service: "ai" }, maxRedirects: 0 });
  expect(step.status()).toBe(303);
  bodies.push(html, await (await request.get(step.headers()["location"]!)).text());
  for (const body of bodies) expect(body).not.toContain(TEST_ACCESS_KEY);
});

test("the page's button starts a request with its answers at step 4, with JavaScript in the browser", async ({ page, context, javaScriptEnabled }) => {
  await page.goto(ESTIMATE);
  const posts = postsOf(page);
  await page.getByRole("button", { name: estimateText.start }).click();
  const calc = calculator(page);
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.locator(".estimate")).toContainText(price);
  if (javaScriptEnabled) {
    await expect(page).toHaveURL(/\/\?step=4#wizard$/);
    await expect(calc.getByRole("heading", { name: calculatorText.headings[4] })).toBeFocused();
  }
  await calc.getByLabel("Project description").fill("Invoice capture for a practice of 12");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText([order.service, order.timeframe, order.complexity, "Invoice capture for a practice of 12"]);
  await expect(calc.locator("tfoot")).toContainText(price);
  if (!javaScriptEnabled) return;
  await expect(page).toHaveURL(/\/\?step=5#wizard$/);
  await page.goBack();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue("Invoice capture for a practice of 12");
  await expect(calc.locator(".estimate")).toContainText(price);
  expect(posts.forms).toEqual([]);
  // The funnel's beacons only: steps 2-4 reached at once (the estimate's three answers), then 5.
  await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
  expect((await context.cookies()).map((c) => c.name)).not.toContain("visit");
});

test.describe("an estimate's page over HTTP", { tag: "@once" }, () => {
  test("the same bytes for everyone, public, an ETag; noindex, named by its figure; rendered", async ({ page, request, stranger }) => {
    const headers = { Cookie: "visit=AAAAAAAAAAAAAAAAAAAAAA", "Accept-Language": "zu-ZA" };
    const first = await request.get(ESTIMATE);
    const second = await stranger.get("/estimate?complexity=complex&utm_source=whatsapp&timeframe=urgent&service=softwareDev", { headers });
    expect([first.status(), second.status()]).toEqual([200, 200]);
    expect(await second.body()).toEqual(await first.body());
    expect(second.headers()["etag"]).toBe(first.headers()["etag"]);
    expect(first.headers()["cache-control"]).toMatch(/^public, /);
    expect(first.headers()["set-cookie"]).toBeUndefined();
    expect((await stranger.get(ESTIMATE, { headers: { ...headers, "If-None-Match": first.headers()["etag"]! } })).status()).toBe(304);
    // Rendered as a page renders: the breakdown once in the HTML; the loader hands the page its choices and its path.
    expect((await first.text()).split(breakdownText.caption).length - 1).toBe(1);
    expect(Object.keys(await (await request.get(`${ESTIMATE}&_data=routes%2Festimate`)).json())).toEqual(["choices", "path"]);
    // With a receipt that is not this browser's: the same answer, private.
    const foreign = await request.get(`${ESTIMATE}&receipt=${"x".repeat(22)}&_data=routes%2Festimate`);
    expect([Object.keys(await foreign.json()), foreign.headers()["cache-control"]]).toEqual([["choices", "path"], "private, no-store"]);
    expect(await (await request.get("/sitemap.xml")).text()).not.toContain("/estimate");

    await page.goto(ESTIMATE);
    const title = `Estimate: ${price} — Software Development, urgent, complex | ${site.name}`;
    await expect(page).toHaveTitle(title);
    const meta = (attribute: string, name: string) => page.locator(`meta[${attribute}="${name}"]`);
    await expect(meta("name", "robots")).toHaveAttribute("content", "noindex");
    await expect(meta("property", "og:title")).toHaveAttribute("content", title);
    await expect(meta("name", "twitter:title")).toHaveAttribute("content", title);
    for (const selector of ['meta[property="og:description"]', 'meta[name="twitter:description"]', 'meta[name="description"]']) {
      const content = await page.locator(selector).getAttribute("content");
      expect(content).toMatch(/^Software Development, Urgent \(1-2 weeks\), Complex: /);
      expect(content).toContain(`= ${price}. `);
    }
    await expect(meta("property", "og:url")).toHaveAttribute("content", new URL(ESTIMATE, site.url).href);
    await expect(meta("name", "twitter:card")).toHaveAttribute("content", "summary_large_image");
  });

  test("anything but three known choices is a 404 that repeats nothing of the address", async ({ request }) => {
    for (const query of [
      "",
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

test("step 5 and the thanks at 320, 390 and 1280 px, to look at", { tag: "@for-the-eye" }, async ({ page }) => {
  for (const [width, height] of WIZARD_VIEWPORTS) {
    await page.setViewportSize({ width, height });
    await upToDetails(page, "", { name: "" });
    await forTheEye(calculator(page).locator("#wizard"), `step-5-${width}`);
    await sendRequest(page);
    await forTheEye(page, `sent-${width}`);
  }
});

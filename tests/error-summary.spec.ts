/**
 * Mistakes are seen at once: a form the server or the browser refuses shows an error summary above
 * it ("There is a problem", each message a link to its field, the GOV.UK pattern). Without
 * JavaScript the refused post's page opens at the summary, in view at every width from a small
 * phone to a desktop; with it focus goes to the first field in error, as before, and a summary
 * link moves focus to its field. With SCREENSHOTS=1, the no-JavaScript summary after a refused
 * step 5 at three widths, to look at.
 */
import type { Locator, Page } from "@playwright/test";
import { seriousViolations } from "./support/axe";
import { expect, forTheEye, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const TITLE = "There is a problem";
const summaryOf = (scope: Locator) => scope.getByRole("region", { name: TITLE });
const contactForm = (page: Page) => page.locator("#contact");

const EMAIL = "Please enter a valid email address";
const PHONE = "Phone number may only contain digits, spaces and + ( ) -";

/** Step 5 sent with a mistyped email and phone (letter O for zero). */
async function refusedSend(page: Page) {
  await atStep5(page, dispatchApp);
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill("Gauteng Freight");
  await calc.getByLabel("Email").fill("ops@gautengfreight");
  await calc.getByLabel("Phone").fill("011 555 O1O1");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
}

/** The contact form sent with a bad email and no service chosen. */
async function refusedMessage(page: Page) {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByLabel("Name").fill("Lerato Mokoena");
  await form.getByLabel("Email").fill("lerato@");
  await form.getByLabel("Message").fill("We need help with local search.");
  await form.getByRole("button", { name: "Send Message" }).click();
}

/** The summary's links: their text and where they point. */
const links = (summary: Locator) => summary.getByRole("link").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));

/** Wholly in the viewport and not under the fixed header. */
async function inView(page: Page, target: Locator) {
  await expect(target).toBeInViewport({ ratio: 1 });
  const header = (await page.locator(".site-header").boundingBox())!;
  expect((await target.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);
}

test("a refused step 5 shows the summary above the fields, each message a link to its field, which keeps its own message", async ({ page }) => {
  await refusedSend(page);
  const calc = calculator(page);
  const summary = summaryOf(calc);
  await expect(summary.getByRole("heading", { name: TITLE })).toBeVisible();
  expect(await links(summary)).toEqual([
    [EMAIL, "#calc-email"],
    [PHONE, "#calc-phone"],
  ]);
  // Above the form: before the step's heading, in the page and in reading order.
  const heading = calc.getByRole("heading", { name: /how to reach you/ });
  expect((await summary.boundingBox())!.y + (await summary.boundingBox())!.height).toBeLessThanOrEqual((await heading.boundingBox())!.y);
  for (const [label, message] of [
    ["Email", EMAIL],
    ["Phone", PHONE],
  ]) {
    await expect(calc.getByLabel(label!)).toHaveAttribute("aria-invalid", "true");
    await expect(calc.getByLabel(label!)).toHaveAccessibleDescription(message!);
  }
  await expect(calc.getByLabel("Company name")).not.toHaveAttribute("aria-invalid");

  await summary.getByRole("link", { name: PHONE }).click();
  await inView(page, calc.getByLabel("Phone"));
  // The field keeps its message after the jump (with JavaScript the page itself moves focus there).
  await expect(calc.getByLabel("Phone")).toHaveAccessibleDescription(PHONE);
});

test("a contact message with mistakes shows the summary at the top of the form, each message a link to its field", async ({ page }) => {
  await refusedMessage(page);
  const form = contactForm(page);
  const summary = summaryOf(form);
  expect(await links(summary)).toEqual([
    [EMAIL, "#contact-email"],
    ["Please choose a service", "#contact-service"],
  ]);
  expect((await summary.boundingBox())!.y + (await summary.boundingBox())!.height).toBeLessThanOrEqual((await form.getByLabel("Name").boundingBox())!.y);
  await summary.getByRole("link", { name: "Please choose a service" }).click();
  await inView(page, form.getByLabel("Service"));
  await expect(form.getByLabel("Service")).toHaveAccessibleDescription("Please choose a service");
});

test("any step's mistake is summed up the same way: a choice missing from step 2 links to the step's first option", async ({ page }) => {
  // No browser posts step 2 without a choice; a hand-made post is answered like any other.
  const answer = await page.request.post("/?index", {
    form: { formName: "calculator", "state.step": "2", "state.service": "seo", "state.complexity": "medium" },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(303);
  expect(answer.headers()["location"]).toMatch(/^\/\?draft=[\w-]{22}&step=2#calc-error-summary$/);
  await page.goto(answer.headers()["location"]!);
  const summary = summaryOf(calculator(page));
  expect(await links(summary)).toEqual([["Please choose a timeframe", "#calc-timeframe"]]);
  await expect(page.locator("#calc-timeframe")).toHaveAccessibleName("Urgent (1-2 weeks)");
  await expect(page.locator("#calc-timeframe")).toHaveAccessibleDescription("Please choose a timeframe");
});

test("a form without mistakes shows no summary", async ({ page }) => {
  await atStep5(page, dispatchApp);
  await expect(summaryOf(page.locator("main"))).toHaveCount(0);
  await expect(page.getByText(TITLE)).toHaveCount(0);
});

// Focus is moved by script.
test.describe("with JavaScript", { tag: "@needs-js" }, () => {
  test("focus goes to the first field in error, and a summary link moves focus to its field without leaving the page", async ({
    page,
    browser,
    javaScriptEnabled,
  }) => {
    await refusedSend(page);
    const calc = calculator(page);
    await expect(calc.getByLabel("Email")).toBeFocused();
    // (Here, where the summary is the page's own: axe's no-JavaScript page would not have this visitor's draft.)
    expect(await seriousViolations(page, browser, javaScriptEnabled)).toEqual([]);
    const at = page.url();
    await summaryOf(calc).getByRole("link", { name: PHONE }).click();
    await expect(calc.getByLabel("Phone")).toBeFocused();
    await inView(page, calc.getByLabel("Phone"));
    // Still the same page, its messages and what was typed in place.
    expect(page.url()).toBe(at);
    await expect(summaryOf(calc).getByRole("link")).toHaveText([EMAIL, PHONE]);
    await expect(calc.getByLabel("Phone")).toHaveValue("011 555 O1O1");

    await refusedMessage(page);
    const form = contactForm(page);
    await expect(form.getByLabel("Email")).toBeFocused();
    await summaryOf(form).getByRole("link", { name: "Please choose a service" }).click();
    await expect(form.getByLabel("Service")).toBeFocused();
    await expect(form.getByLabel("Email")).toHaveValue("lerato@");
  });

  test("when the form's checks cannot load, the server's page opens at the summary and focus still goes to the first field in error", async ({ page }) => {
    // The contact form's rules load lazily (app/forms/README.md); without them the server checks.
    await page.route(/\/build\/.*schema-[\w-]+\.js$/, (route) => route.abort());
    await refusedMessage(page);
    await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
    const form = contactForm(page);
    await expect(summaryOf(form).getByRole("link")).toHaveText([EMAIL, "Please choose a service"]);
    await expect(form.getByLabel("Email")).toBeFocused();
  });
});

for (const [width, height] of WIZARD_VIEWPORTS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height } });

    // With JavaScript focus goes to the first field in error instead (above).
    test.describe("without JavaScript", { tag: "@without-js" }, () => {
      test("a refused step 5 opens at the error summary, in view", async ({ page }) => {
        await refusedSend(page);
        await expect(page).toHaveURL(/\/\?draft=[\w-]{22}&step=5#calc-error-summary$/);
        // There at once, as the page loads: not found by scrolling.
        await page.waitForLoadState("load");
        await inView(page, summaryOf(calculator(page)));
      });

      test("a contact message with mistakes opens at the error summary, in view", async ({ page }) => {
        await refusedMessage(page);
        await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
        await page.waitForLoadState("load");
        await inView(page, summaryOf(contactForm(page)));
      });

      test("the error summary after a refused step 5", { tag: "@for-the-eye" }, async ({ page }) => {
        await refusedSend(page);
        await page.waitForLoadState("load");
        await forTheEye(page, `error-summary-${width}`);
      });
    });
  });
}

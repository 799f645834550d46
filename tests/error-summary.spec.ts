/**
 * A refused form shows an error summary above it (GOV.UK's pattern), each message a link to its
 * field: without JavaScript on a GET page opened at the summary, with JavaScript by moving focus.
 */
import type { Locator } from "@playwright/test";
import { LEVELS } from "../app/content/levels";
import { wcagViolations } from "./support/axe";
import { expect, expectBelowHeader, forTheEye, test } from "./support/fixtures";
import { atStep5, calculator, contactForm, dispatchApp, fillDetails, fillValues, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const TITLE = "There is a problem";
const summaryOf = (scope: Locator) => scope.getByRole("region", { name: TITLE });

const COMPANY = "Please enter your company name";
const EMAIL = "Please enter a valid email address";
const PHONE = "Phone number may only contain digits, spaces and + ( ) -";

/** The summary's links: their text and where they point. */
const links = (summary: Locator) => summary.getByRole("link").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));

test("a refused step 5: the summary above, links to the fields, values and messages kept, nothing sent", async ({ page, formService, javaScriptEnabled }) => {
  // Step 5 sent with a blank company name, a mistyped email and phone (letter O for zero).
  await atStep5(page, dispatchApp);
  await expect(summaryOf(page.locator("main"))).toHaveCount(0);
  await expect(page.getByText(TITLE)).toHaveCount(0);
  const calc = calculator(page);
  await fillDetails(page, { name: `Thandi ${formService.token}`, company: "   ", email: "ops@gautengfreight", phone: "011 555 O1O1" });
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  const summary = summaryOf(calc);
  await expect(summary.getByRole("heading", { name: TITLE })).toBeVisible();
  expect(await links(summary)).toEqual([
    [COMPANY, "#calc-companyName"],
    [EMAIL, "#calc-email"],
    [PHONE, "#calc-phone"],
  ]);
  // Above the form: before the step's heading, in the page and in reading order.
  const heading = calc.getByRole("heading", { name: /how to reach you/ });
  expect((await summary.boundingBox())!.y + (await summary.boundingBox())!.height).toBeLessThanOrEqual((await heading.boundingBox())!.y);
  const fields = { "Company name": [COMPANY, "   "], Email: [EMAIL, "ops@gautengfreight"], Phone: [PHONE, "011 555 O1O1"] };
  const kept = async () => {
    for (const [label, [message, value]] of Object.entries(fields)) {
      await expect(calc.getByLabel(label)).toHaveAttribute("aria-invalid", "true");
      await expect(calc.getByLabel(label)).toHaveAccessibleDescription(message!);
      await expect(calc.getByLabel(label)).toHaveValue(value!);
    }
    await expect(calc.getByLabel("Your name (optional)")).not.toHaveAttribute("aria-invalid");
  };
  await kept();
  if (javaScriptEnabled) {
    // Focus is moved by script, and the summary is the page's own (axe's page without JavaScript would not have this visitor's draft).
    await expect(calc.getByLabel("Company name")).toBeFocused();
    expect(await wcagViolations(page)).toEqual([]);
  } else {
    // The step's page, opened at its error summary: a GET, so a reload shows the same messages and values.
    await expect(page).toHaveURL(/\/\?draft=[\w-]{22}&step=5#calc-error-summary$/);
    expect((await page.reload())?.request().method()).toBe("GET");
    await kept();
  }
  const at = page.url();
  await summaryOf(calc).getByRole("link", { name: PHONE }).click();
  await expectBelowHeader(calc.getByLabel("Phone"));
  // The field keeps its message after the jump; with JavaScript the page itself moves focus there, on the same page.
  await expect(calc.getByLabel("Phone")).toHaveAccessibleDescription(PHONE);
  if (javaScriptEnabled) {
    await expect(calc.getByLabel("Phone")).toBeFocused();
    expect(page.url()).toBe(at);
    await expect(summaryOf(calc).getByRole("link")).toHaveText([COMPANY, EMAIL, PHONE]);
  }
  expect(await formService.settled()).toEqual([]);
});

test("with JavaScript but no form checks loaded, the server's summary opens, focus on the field", { tag: "@needs-js" }, async ({ page }) => {
  // The contact form's rules load lazily (app/forms/README.md); without them the server checks.
  await page.route(/\/build\/.*schema-[\w-]+\.js$/, (route) => route.abort());
  await page.goto("/");
  const form = contactForm(page);
  await fillValues(form, { Name: "Lerato Mokoena", Email: "lerato@", Message: "We need help with local search." });
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
  await expect(summaryOf(form).getByRole("link")).toHaveText([EMAIL, "Please choose a service"]);
  await expect(form.getByLabel("Email")).toBeFocused();
});

// The pages the refused posts are answered with, loaded at each width (with JavaScript focus moves instead: above).
test("without JavaScript, at 320, 390 and 1280 px, a refused form, or step, opens at its summary, in view", { tag: "@without-js" }, async ({ page }) => {
  const refused = async (form: Record<string, string>, at: RegExp) => {
    const answer = await page.request.post("/?index", { form, maxRedirects: 0 });
    expect([answer.status(), answer.headers()["location"]]).toEqual([303, expect.stringMatching(at)]);
    // There at once, as the page loads: not found by scrolling.
    await page.goto(answer.headers()["location"]!);
  };
  for (const [width, height] of WIZARD_VIEWPORTS) {
    await page.setViewportSize({ width, height });
    const step5 = { "state.step": "5", "state.service": "softwareDev", "state.timeframe": "urgent", "state.complexity": "complex", "state.description": "x" };
    await refused(
      { formName: "calculator", ...step5, companyName: "   ", email: "ops@gautengfreight", phone: "011 555 O1O1", intent: "send" },
      /^\/\?draft=[\w-]{22}&step=5#calc-error-summary$/,
    );
    await expect(summaryOf(calculator(page)).getByRole("link")).toHaveText([COMPANY, EMAIL, PHONE]);
    await expectBelowHeader(summaryOf(calculator(page)));
    await forTheEye(page, `error-summary-${width}`);
    await refused(
      { formName: "contact", name: "Lerato Mokoena", email: "lerato@", service: "", message: "We need help." },
      /^\/\?contact=[\w-]{22}#contact-error-summary$/,
    );
    await expectBelowHeader(summaryOf(contactForm(page)));
    // Any step's mistake the same way (no browser posts step 2 without a choice): linked to the step's first option.
    await refused(
      { formName: "calculator", "state.step": "2", "state.service": "seo", "state.complexity": "medium" },
      /^\/\?draft=[\w-]{22}&step=2#calc-error-summary$/,
    );
    expect(await links(summaryOf(calculator(page)))).toEqual([["Please choose a timeframe", "#calc-timeframe"]]);
    await expectBelowHeader(summaryOf(calculator(page)));
    await expect(page.locator("#calc-timeframe")).toHaveAccessibleName("Urgent (1-2 weeks)");
    // The message first, then the option's line for the service.
    await expect(page.locator("#calc-timeframe")).toHaveAccessibleDescription(`Please choose a timeframe ${LEVELS.seo.urgent}`);
  }
});

/**
 * Step 5 of the calculator, with JavaScript on and off: the estimate explained (base price × each
 * multiplier), the answers with Change controls that go straight to a step and come back keeping
 * what was typed, and after the send the thanks: the reference, what was sent and its estimate's
 * link, every figure in US dollars (written out here, not made by the formatter under test:
 * 2,500 × 1.5 × 1.5 = 5,625), and a printed receipt; with JavaScript, focus stays with the
 * visitor. With SCREENSHOTS=1, step 5 and the thanks at three widths, to look at.
 */
import type { Locator, Page } from "@playwright/test";
import { breakdownText } from "../app/content/breakdown";
import { calculatorText, sentSummary } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { wcagViolations } from "./support/axe";
import { A4, expect, forTheEye, pdfPages, test } from "./support/fixtures";
import { atStep5, breakdownRows, calculator, dispatchApp, priceOf, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const upToDetails = (page: Page) => atStep5(page, dispatchApp);
const ESTIMATE = "/estimate?service=softwareDev&timeframe=urgent&complexity=complex";

/** Step 5's details filled in (the company carries `token`) and sent, up to the thanks. */
async function sendDetails(page: Page, token = "") {
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill(`Acme ${token}`);
  await calc.getByLabel("Email").fill("ada@acme.example");
  await calc.getByLabel("Phone").fill("011 555 0100");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
}

/** Each figure of the text (digits with thousands commas) is preceded by "USD", and no "$" is left. */
async function namesTheCurrency(where: Locator, figures: string[]) {
  const text = (await where.innerText()).replace(/\s+/g, " ");
  expect(text).not.toContain("$");
  for (const figure of figures) expect(text).toContain(`USD ${figure}`);
}

test("step 5 explains the estimate and lists the answers; Change goes straight to a step and back, keeping the details typed; the send carries the new answers", async ({
  page,
  formService,
  javaScriptEnabled,
}) => {
  await upToDetails(page);
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
  await expect(summary.locator(".summary-value")).toHaveText(["Software Development", "Urgent (1-2 weeks)", "Complex", "A dispatch app for 40 drivers"]);
  for (const what of ["service", "timeframe", "complexity", "description"]) await expect(summary.getByRole("button", { name: `Change ${what}` })).toBeVisible();
  // The privacy notice beside the send button.
  await expect(calc.getByRole("link", { name: "How we handle your data" })).toHaveAttribute("href", "/privacy");

  const company = `Gauteng Freight ${formService.token}`;
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill("ops@gautengfreight.co.za");
  await calc.getByLabel("Phone").fill("+27 11 555 0101");
  // With JavaScript, focus moves to the heading of each step shown (by script).
  const focusedOn = async (step: 1 | 2 | 4 | 5) => {
    if (javaScriptEnabled) await expect(calc.getByRole("heading", { name: calculatorText.headings[step] })).toBeFocused();
  };

  await calc.getByRole("button", { name: "Change timeframe" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await focusedOn(2);
  await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await focusedOn(5);
  await expect(calc.getByLabel("Company name")).toHaveValue(company);
  await expect(calc.locator("tfoot")).toContainText(priceOf({ ...dispatchApp, timeframe: "Relaxed (5-8 weeks)" }));

  await calc.getByRole("button", { name: "Change description" }).click();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await focusedOn(4);
  await expect(calc.getByLabel("Project description")).toHaveValue("A dispatch app for 40 drivers");
  await calc.getByLabel("Project description").fill("Route planning for 12 vans");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");

  const changed = { service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)", complexity: dispatchApp.complexity };
  await calc.getByRole("button", { name: "Change service" }).click();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await focusedOn(1);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Complex", "Route planning for 12 vans"]);
  await expect(calc.locator("tfoot")).toContainText(priceOf(changed));
  await expect(calc.getByLabel("Email")).toHaveValue("ops@gautengfreight.co.za");

  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  const reference = (await calc.locator(".reference").textContent())!;
  await expect(calc.getByText(calculatorText.nextSteps)).toBeVisible();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  const [payload] = (await formService.settled()) as Record<string, string>[];
  for (const line of [
    "Service: AI Solutions",
    "Timeframe: Relaxed (5-8 weeks)",
    "Description: Route planning for 12 vans",
    `Estimated cost: ${priceOf(changed)}`,
    `Company: ${company}`,
  ])
    expect(payload!.message).toContain(line);
  // No name given: no Name line, and the company alone is the sender.
  expect(payload!.message).not.toMatch(/^Name:/m);
  expect(payload!.from_name).toBe(company);
  expect(payload!.message).toMatch(new RegExp(`\\nReference: ${reference}$`));
});

test("the thanks: the reference, what was sent and its estimate's link, in USD as the lead is, no booking on this site, and on paper the receipt", async ({
  page,
  formService,
  javaScriptEnabled,
}) => {
  await page.goto("/");
  const calc = calculator(page);
  await calc.getByRole("button", { name: dispatchApp.service, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await namesTheCurrency(calc.locator(".estimate"), ["2,500"]);
  await atStep5(page, dispatchApp);
  await namesTheCurrency(calc.getByRole("table"), ["2,500", "5,625"]);
  await sendDetails(page, formService.token);
  const reference = (await calc.locator(".reference").textContent())!;
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  const thanks = calc.locator(".wizard-sent");
  await expect(thanks).toContainText(sentSummary(`${dispatchApp.service}, ${dispatchApp.timeframe}, ${dispatchApp.complexity}`, priceOf(dispatchApp)));
  await namesTheCurrency(thanks, ["5,625"]);
  const keep = thanks.getByRole("link", { name: calculatorText.keepLink });
  await expect(keep).toHaveAttribute("href", ESTIMATE);
  // This site has no BOOKING_URL (estimate.spec.ts has one that does).
  await expect(page.getByRole("link", { name: calculatorText.bookCall })).toHaveCount(0);
  // The address holds a receipt's id, never the reference or anything sent (calculator-drafts-and-receipts.spec.ts).
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  if (javaScriptEnabled) {
    // Focus is moved by script: to the thanks, then Tab reaches the estimate's link and the restarted wizard.
    await expect(thanks).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(keep).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(calc.getByRole("button", { name: "Software Development", exact: true })).toBeFocused();
    expect(await wcagViolations(page)).toEqual([]);
  }

  const [lead] = (await formService.settled()) as { message: string }[];
  expect(lead!.message).toMatch(/^Estimated cost: USD\s5,625$/m);
  expect(lead!.message).not.toContain("$");
  expect(lead!.message).toMatch(new RegExp(`\\nReference: ${reference}$`));

  // Printed: one A4 page with the reference, what was sent and its estimate's address, without the calculator's choices.
  expect(pdfPages(await page.pdf(A4))).toBe(1);
  await page.emulateMedia({ media: "print" });
  for (const hidden of [page.locator(".hero"), page.locator("#services"), page.locator("#contact"), calc.getByRole("button", { name: dispatchApp.service })])
    await expect(hidden).toBeHidden();
  await expect(calc.locator(".reference")).toBeVisible();
  await expect(thanks).toContainText(sentSummary(`${dispatchApp.service}, ${dispatchApp.timeframe}, ${dispatchApp.complexity}`, priceOf(dispatchApp)));
  expect(await keep.evaluate((a) => getComputedStyle(a, "::after").content)).toContain(ESTIMATE);
});

for (const [width, height] of WIZARD_VIEWPORTS) {
  test(`step 5 and the thanks at ${width} px`, { tag: "@for-the-eye" }, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await upToDetails(page);
    await forTheEye(calculator(page).locator("#wizard"), `step-5-${width}`);
    await sendDetails(page);
    await forTheEye(page, `sent-${width}`);
  });
}

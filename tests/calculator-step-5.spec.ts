/**
 * Step 5 of the calculator, with JavaScript on and off: the estimate explained (base price × each
 * multiplier), the answers with Change controls that go straight to a step and come back keeping
 * what was typed, and after the send the reference and what happens next; with JavaScript, focus
 * stays with the visitor. With SCREENSHOTS=1, step 5 and the thanks at three widths, to look at.
 */
import type { Page } from "@playwright/test";
import { breakdownText } from "../app/content/breakdown";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { seriousViolations } from "./support/axe";
import { expect, forTheEye, test } from "./support/fixtures";
import { atStep5, breakdownRows, calculator, dispatchApp, priceOf, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const upToDetails = (page: Page) => atStep5(page, dispatchApp);

/** Step 5's details filled in and sent, up to the thanks. */
async function sendDetails(page: Page) {
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill("Acme");
  await calc.getByLabel("Email").fill("ada@acme.example");
  await calc.getByLabel("Phone").fill("011 555 0100");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
}

test("step 5 explains the estimate, lists the answers with Change controls, and says what happens", async ({ page }) => {
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
  const breakdown = calc.getByRole("table", { name: breakdownText.caption });
  await expect(breakdown.getByRole("row")).toHaveText(breakdownRows(dispatchApp));
  const summary = calc.getByRole("region", { name: calculatorText.summaryTitle });
  await expect(summary.locator("dt")).toHaveText(["Service", "Timeframe", "Complexity", "Project description"]);
  await expect(summary.locator(".summary-value")).toHaveText(["Software Development", "Urgent (1-2 weeks)", "Complex", "A dispatch app for 40 drivers"]);
  for (const what of ["service", "timeframe", "complexity", "description"]) await expect(summary.getByRole("button", { name: `Change ${what}` })).toBeVisible();
  // axe: accessibility.spec.ts checks this step 5 (the same choices) in both projects, schemes and two widths.
});

test("Change goes straight to a step and comes back to step 5, keeping the details typed; the send carries the new answers", async ({ page, formService }) => {
  await upToDetails(page);
  const calc = calculator(page);
  const company = `Gauteng Freight ${formService.token}`;
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill("ops@gautengfreight.co.za");
  await calc.getByLabel("Phone").fill("+27 11 555 0101");

  await calc.getByRole("button", { name: "Change timeframe" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.getByLabel("Company name")).toHaveValue(company);
  await expect(calc.locator("tfoot")).toContainText(priceOf({ ...dispatchApp, timeframe: "Relaxed (5-8 weeks)" }));

  await calc.getByRole("button", { name: "Change description" }).click();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue("A dispatch app for 40 drivers");
  await calc.getByLabel("Project description").fill("Route planning for 12 vans");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");

  const changed = { service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)", complexity: dispatchApp.complexity };
  await calc.getByRole("button", { name: "Change service" }).click();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Complex", "Route planning for 12 vans"]);
  await expect(calc.locator("tfoot")).toContainText(priceOf(changed));
  await expect(calc.getByLabel("Email")).toHaveValue("ops@gautengfreight.co.za");

  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  const reference = (await calc.locator(".reference").textContent())!;
  expect(reference).toMatch(/^[0-9A-Z-]{6,40}$/);
  await expect(calc.getByText(calculatorText.nextSteps)).toBeVisible();
  // The address holds a receipt's id, never the reference itself (tests/calculator-drafts-and-receipts.spec.ts).
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  await expect(progress(page)).toHaveText("Step 1 of 5");

  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
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

// Focus is moved by script.
test.describe("with JavaScript, focus stays with the visitor", { tag: "@needs-js" }, () => {
  test("after a send, focus is on the thanks and reference; Tab reaches the estimate's link, then the restarted wizard", async ({
    page,
    browser,
    javaScriptEnabled,
  }) => {
    await upToDetails(page);
    const calc = calculator(page);
    await sendDetails(page);
    await expect(calc.locator(".wizard-sent")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(calc.getByRole("link", { name: calculatorText.keepLink })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(calc.getByRole("button", { name: "Software Development", exact: true })).toBeFocused();
    expect(await seriousViolations(page, browser, javaScriptEnabled)).toEqual([]);
  });

  test("Change moves focus to the step's heading", async ({ page }) => {
    await upToDetails(page);
    const calc = calculator(page);
    await calc.getByRole("button", { name: "Change complexity" }).click();
    await expect(calc.getByRole("heading", { name: calculatorText.headings[3] })).toBeFocused();
    await calc.getByRole("button", { name: "Simple" }).click();
    await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeFocused();
  });
});

for (const [width, height] of WIZARD_VIEWPORTS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height } });

    test("step 5 and the thanks", { tag: "@for-the-eye" }, async ({ page }) => {
      await upToDetails(page);
      await forTheEye(calculator(page).locator("#wizard"), `step-5-${width}`);
      await sendDetails(page);
      await forTheEye(page, `sent-${width}`);
    });
  });
}

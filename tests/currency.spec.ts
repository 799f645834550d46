/**
 * Every figure names its currency, US dollars, for a Johannesburg audience that would otherwise
 * read "$" as anyone's dollars: the wizard's running estimate, step 5's breakdown, the thanks, an
 * estimate's page on screen and printed, and the lead's text the agency receives. The figures
 * are written out here (Software Development, urgent, complex: 2,500 × 1.5 × 1.5 = 5,625), not
 * made by the formatter under test.
 */
import type { Locator } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, progress } from "./support/wizard";

/** Each figure of the text (digits with thousands commas) is preceded by "USD", and no "$" is left. */
async function namesTheCurrency(where: Locator, figures: string[]) {
  const text = (await where.innerText()).replace(/\s+/g, " ");
  expect(text).not.toContain("$");
  for (const figure of figures) expect(text).toContain(`USD ${figure}`);
}

test("the wizard's figures say USD: the running estimate, step 5's breakdown, the thanks and the lead's text", async ({ page, formService }) => {
  await page.goto("/");
  const calc = calculator(page);
  await calc.getByRole("button", { name: dispatchApp.service, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await namesTheCurrency(calc.locator(".estimate"), ["2,500"]);

  await atStep5(page, dispatchApp);
  await namesTheCurrency(calc.getByRole("table"), ["2,500", "5,625"]);

  const company = `Gauteng Freight ${formService.token}`;
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill("ops@gautengfreight.co.za");
  await calc.getByLabel("Phone").fill("+27 11 555 0101");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.locator(".reference")).toBeVisible();
  await namesTheCurrency(calc.locator(".wizard-sent"), ["5,625"]);

  const [payload] = (await formService.settled()) as { message: string }[];
  expect(payload!.message).toMatch(/^Estimated cost: USD\s5,625$/m);
  expect(payload!.message).not.toContain("$");
});

test("an estimate's page says USD on screen, in its title and printed", { tag: "@once" }, async ({ page }) => {
  await page.goto("/estimate?service=softwareDev&timeframe=urgent&complexity=complex");
  await expect(page).toHaveTitle(/^Estimate: USD\s5,625 /);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /= USD\s5,625\./);
  await namesTheCurrency(page.locator("main"), ["2,500", "5,625"]);
  await page.emulateMedia({ media: "print" });
  await namesTheCurrency(page.locator("main"), ["2,500", "5,625"]);
});

test("the largest figure, USD 11,250, keeps to a 320 px screen: step 5's breakdown and its estimate's page", async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  const largest = { service: "Mobile App Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "An app for 40 drivers" };
  await atStep5(page, largest);
  const calc = calculator(page);
  await expect(calc.locator("tfoot")).toContainText(/USD\s11,250/);
  const [table, form] = [await calc.getByRole("table").boundingBox(), await calc.locator("form").boundingBox()];
  expect(table!.x + table!.width).toBeLessThanOrEqual(form!.x + form!.width);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

  await page.goto("/estimate?service=mobileApp&timeframe=urgent&complexity=complex");
  // The figure on one line, under "Estimate:" if need be, never split after "USD".
  const figure = await page
    .getByRole("heading", { level: 1 })
    .getByText(/USD\s11,250/)
    .boundingBox();
  expect(figure!.height).toBeLessThan(60);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
});

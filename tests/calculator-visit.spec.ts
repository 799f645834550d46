/**
 * The calculator as a visitor goes through it (docs/product.md): each step a GET without JavaScript
 * (Back and reload never resend), the estimate explained with Change controls, the reference after
 * sending, and "Estimate this" on the services. The basics of the wizard are in calculator.spec.ts.
 */
import type { Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { seriousViolations } from "./support/axe";
import { expect, forTheEye, test } from "./support/fixtures";
import { atStep5, calculator, progress } from "./support/wizard";

const DRAFT_URL = /\/\?draft=[\w-]{22}&step=[1-5]#wizard$/;
const choices = { service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "A dispatch app for 40 drivers" };
const upToDetails = (page: Page, { walk = false } = {}) => atStep5(page, choices, { walk });

/** Step 5's details filled in and sent, up to the thanks. */
async function sendDetails(page: Page) {
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill("Acme");
  await calc.getByLabel("Email").fill("ada@acme.example");
  await calc.getByLabel("Phone").fill("011 555 0100");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
}

// With JavaScript steps 1-4 run in the browser.
test.describe("without JavaScript, every step is a page of its own", { tag: "@without-js" }, () => {
  test("each step's post is answered 303 with a GET of the step, so reload and Back never send a form again", async ({ page }) => {
    const posts: number[] = [];
    page.on("response", (r) => r.request().isNavigationRequest() && r.request().method() === "POST" && posts.push(r.status()));
    await upToDetails(page, { walk: true });
    expect(posts).toEqual([303, 303, 303, 303]);
    await expect(page).toHaveURL(DRAFT_URL);

    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calculator(page).locator(".estimate")).toContainText("$5,625");

    // A history entry made by a POST would need the form again (Chrome: ERR_CACHE_MISS), since
    // the step pages are no-store; these are GETs, so Back simply shows the earlier step, with
    // everything chosen and typed since (the visit's latest answers, like the wizard's own Back).
    const back = await page.goBack();
    if (back) expect(back.request().method()).toBe("GET");
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calculator(page).getByLabel("Project description")).toHaveValue("A dispatch app for 40 drivers");
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 3 of 5");
    await expect(calculator(page).getByRole("button", { name: "Complex" })).toHaveAttribute("aria-current", "true");
    await page.goForward();
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await page.goForward();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await calculator(page).getByRole("button", { name: "Back" }).click();
    await expect(progress(page)).toHaveText("Step 4 of 5");
    expect(posts).toEqual([303, 303, 303, 303, 303]);
  });

  test("a step with errors is a GET too: reloading it shows the same messages and values", async ({ page }) => {
    await upToDetails(page);
    const calc = calculator(page);
    await calc.getByLabel("Company name").fill("Acme");
    await calc.getByLabel("Email").fill("not-an-email");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(page).toHaveURL(DRAFT_URL);
    await expect(calc.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    await expect(calc.getByLabel("Email")).toHaveValue("not-an-email");
    await expect(calc.getByLabel("Company name")).toHaveValue("Acme");
    await expect(calc.getByLabel("Phone")).toHaveAccessibleDescription("Please enter your phone number");
  });

  test("a step's page is one visitor's own (private, no-store); the home page without one stays the same for everyone", async ({ request }) => {
    const posted = await request.post("/?index", { form: { formName: "calculator", "state.step": "1", service: "ai" }, maxRedirects: 0 });
    expect(posted.status()).toBe(303);
    const location = posted.headers()["location"]!;
    expect(location).toMatch(/^\/\?draft=[\w-]{22}&step=2#wizard$/);
    const step = await request.get(location);
    expect(step.status()).toBe(200);
    expect(step.headers()["cache-control"]).toBe("private, no-store");
    expect(await step.text()).toMatch(/Step (<!-- -->)?2(<!-- -->)? of/);
    const data = await request.get(`${location.split("#")[0]}&_data=routes%2F_index`);
    expect(data.headers()["cache-control"]).toBe("private, no-store");
    expect(((await data.json()) as { draft: { state: { service: string } } }).draft.state.service).toBe("ai");

    const [one, two] = [await request.get("/"), await request.get("/")];
    expect(one.headers()["cache-control"]).toMatch(/^public/);
    const strip = (html: string) => html.replace(/nonce="[^"]*"|'nonce-[^']*'/g, "");
    expect(strip(await one.text())).toBe(strip(await two.text()));
  });
});

test("an unknown or expired step page starts the calculator again, with a short note", async ({ page }) => {
  await page.goto(`/?draft=${"x".repeat(22)}#wizard`);
  const calc = calculator(page);
  await expect(calc.getByText(calculatorText.expired)).toBeVisible();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await calc.getByRole("button", { name: "Zoho Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await expect(calc.getByText(calculatorText.expired)).toHaveCount(0);
});

test("step 5 explains the estimate, lists the answers with Change controls, and says what happens", async ({ page, browser, javaScriptEnabled }) => {
  await upToDetails(page);
  const calc = calculator(page);
  await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeVisible();
  await expect(page.getByText("Where should we send your estimate?")).toHaveCount(0);
  await expect(calc.getByText(calculatorText.detailsIntro)).toBeVisible();
  // A name is asked for, so the reply can greet someone, but not required (the other three fields are).
  const name = calc.getByLabel("Your name (optional)");
  await expect(name).toHaveAttribute("autocomplete", "name");
  await expect(name).toHaveAttribute("maxlength", "100");
  await expect(name).not.toHaveAttribute("required");
  for (const label of ["Company name", "Email", "Phone"]) await expect(calc.getByLabel(label)).toHaveAttribute("required");
  const breakdown = calc.getByRole("table", { name: calculatorText.breakdownCaption });
  await expect(breakdown.getByRole("row")).toHaveText([
    /^Software Development, base price\s*\$2,500$/,
    /^Urgent \(1-2 weeks\)\s*× 1\.5$/,
    /^Complex\s*× 1\.5$/,
    /^Your estimate \(\$2,500 ×\s1\.5 ×\s1\.5\)\s*\$5,625$/, // a no-break space keeps "×" with its number
  ]);
  const summary = calc.getByRole("region", { name: calculatorText.summaryTitle });
  await expect(summary.locator("dt")).toHaveText(["Service", "Timeframe", "Complexity", "Project description"]);
  await expect(summary.locator(".summary-value")).toHaveText(["Software Development", "Urgent (1-2 weeks)", "Complex", "A dispatch app for 40 drivers"]);
  for (const what of ["service", "timeframe", "complexity", "description"]) await expect(summary.getByRole("button", { name: `Change ${what}` })).toBeVisible();
  expect(await seriousViolations(page, browser, javaScriptEnabled)).toEqual([]);
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
  await expect(calc.locator("tfoot")).toContainText("$3,000");

  await calc.getByRole("button", { name: "Change description" }).click();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue("A dispatch app for 40 drivers");
  await calc.getByLabel("Project description").fill("Route planning for 12 vans");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");

  await calc.getByRole("button", { name: "Change service" }).click();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Complex", "Route planning for 12 vans"]);
  await expect(calc.locator("tfoot")).toContainText("$3,600");
  await expect(calc.getByLabel("Email")).toHaveValue("ops@gautengfreight.co.za");

  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  const reference = (await calc.locator(".reference").textContent())!;
  expect(reference).toMatch(/^[0-9A-Z-]{6,40}$/);
  await expect(calc.getByText(calculatorText.nextSteps)).toBeVisible();
  // The address holds a receipt's id, never the reference itself (tests/calculator-trust.spec.ts).
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  await expect(progress(page)).toHaveText("Step 1 of 5");

  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
  for (const line of [
    "Service: AI Solutions",
    "Timeframe: Relaxed (5-8 weeks)",
    "Description: Route planning for 12 vans",
    "Estimated cost: $3,600",
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

for (const [width, height] of [
  [320, 568],
  [390, 844],
  [1280, 800],
] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height } });

    test("Estimate this on /services opens the calculator at step 2 with that service chosen, its choices in view under the header", async ({
      page,
      javaScriptEnabled,
    }) => {
      await page.goto("/services");
      const posts: string[] = [];
      page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
      await page.getByRole("button", { name: "Estimate this for AI Solutions" }).click();
      // With JavaScript the browser takes the step itself and the server keeps nothing (decision 0025).
      await expect(page).toHaveURL(javaScriptEnabled ? /\/\?step=2#wizard$/ : DRAFT_URL);
      expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);
      const calc = calculator(page);
      await expect(progress(page)).toHaveText("Step 2 of 5");
      await expect(calc.locator(".estimate")).toContainText("$3,000");
      const heading = calc.getByRole("heading", { name: calculatorText.headings[2] });
      if (javaScriptEnabled) await expect(heading).toBeFocused();
      await expect(progress(page)).toBeInViewport();
      const header = await page.locator(".site-header").boundingBox();
      expect((await progress(page).boundingBox())!.y).toBeGreaterThanOrEqual(header!.y + header!.height);
      const choices = ["Urgent (1-2 weeks)", "Standard (3-4 weeks)", "Relaxed (5-8 weeks)"];
      // On the smallest phones the first choice is in view; from 390 px all of them are.
      for (const name of width < 390 ? choices.slice(0, 1) : choices) await expect(calc.getByRole("button", { name })).toBeInViewport();
      await forTheEye(page, `estimate-this-${width}`);
    });

    // With JavaScript steps 1-4 stay where they are.
    test("a step page lands at the wizard's card with the step's choices in view", { tag: "@without-js" }, async ({ page }) => {
      await page.goto("/#calculator");
      await calculator(page).getByRole("button", { name: "Mobile App Development" }).click();
      await expect(progress(page)).toHaveText("Step 2 of 5");
      // There at once, not by a smooth scroll from the top of the page: read as it loads, no retry.
      await page.waitForLoadState("load");
      const top = await page.evaluate(() => document.querySelector("#wizard")!.getBoundingClientRect().top);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThan(height / 2);
      await expect(progress(page)).toBeInViewport();
      const header = await page.locator(".site-header").boundingBox();
      expect((await progress(page).boundingBox())!.y).toBeGreaterThanOrEqual(header!.y + header!.height);
      await expect(calculator(page).getByRole("button", { name: "Urgent (1-2 weeks)" })).toBeInViewport();
      await calculator(page).getByRole("button", { name: "Back" }).click();
      await expect(progress(page)).toHaveText("Step 1 of 5");
      const services = ["Software Development", "Mobile App Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"];
      for (const name of width < 390 ? services.slice(0, 1) : services)
        await expect(calculator(page).getByRole("button", { name, exact: true })).toBeInViewport();
    });

    test("step 5 and the thanks", { tag: "@for-the-eye" }, async ({ page }) => {
      await upToDetails(page);
      await forTheEye(calculator(page).locator("#wizard"), `step-5-${width}`);
      await sendDetails(page);
      await forTheEye(page, `sent-${width}`);
    });
  });
}

test("Estimate this on the home page's selected service tab opens step 2 with it chosen, the tab still selected", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "SEO & Digital Marketing" }).click();
  await page.getByRole("button", { name: "Estimate this for SEO & Digital Marketing" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  if (test.info().project.use.javaScriptEnabled)
    await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(calculator(page).locator(".estimate")).toContainText("$1,000");
  await calculator(page).getByRole("button", { name: "Back" }).click();
  await expect(calculator(page).getByRole("button", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-current", "true");
});

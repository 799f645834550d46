/**
 * With JavaScript the wizard behaves like its pages without it (decision 0025): each step is an
 * address of its own and a history entry, Back and Forward walk the steps showing the latest
 * answers, and a reload keeps the step; the answers stay in the tab's session storage and never
 * reach the address. Without JavaScript the same is calculator-step-pages.spec.ts's step pages.
 */
import type { Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { clickStill, expect, test } from "./support/fixtures";
import { calculator, postsOf, priceOf, progress } from "./support/wizard";

const details = { name: "Thandi Nkosi", company: "Gauteng Freight", email: "ops@gautengfreight.co.za", phone: "+27 11 555 0101" };
const description = "A dispatch app for 40 drivers";
const STEP_URL = (step: number) => new RegExp(`/\\?step=${step}#wizard$`);

/** Every address the page shows, same-document changes included. */
function addresses(page: Page): string[] {
  const seen: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && seen.push(frame.url()));
  return seen;
}

/** From the page as it is, through steps 1-4 by clicks, to step 5 with the details typed in. */
async function walkToDetails(page: Page) {
  const calc = calculator(page);
  await calc.getByRole("button", { name: "Software Development", exact: true }).click();
  await expect(page).toHaveURL(STEP_URL(2));
  await calc.getByRole("button", { name: "Urgent (1-2 weeks)" }).click();
  await expect(page).toHaveURL(STEP_URL(3));
  await calc.getByRole("button", { name: "Complex" }).click();
  await expect(page).toHaveURL(STEP_URL(4));
  await calc.getByLabel("Project description").fill(description);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(STEP_URL(5));
  await calc.getByLabel("Your name (optional)").fill(details.name);
  await calc.getByLabel("Company name").fill(details.company);
  await calc.getByLabel("Email").fill(details.email);
  await calc.getByLabel("Phone").fill(details.phone);
}

/** A request sent from the home page through every step, thanked; `token` marks it at the fake service. */
async function sendFromHome(page: Page, token: string) {
  await page.goto("/");
  await walkToDetails(page);
  await calculator(page).getByLabel("Company name").fill(`${details.company} ${token}`);
  await clickStill(calculator(page).getByRole("button", { name: "Send My Request" }));
  await expect(calculator(page).getByRole("status")).toHaveText(messages.calculatorSent);
}

test.describe("with JavaScript, the wizard's steps are history", { tag: "@needs-js" }, () => {
  test("each step is an address and a history entry: Back and Forward walk the steps with the latest answers, and Back from step 1 leaves the page", async ({
    page,
  }) => {
    await page.goto("/about");
    await page.goto("/");
    const seen = addresses(page);
    const requests: string[] = [];
    page.on("request", (r) => r.resourceType() !== "script" && !r.url().endsWith("/steps") && requests.push(`${r.method()} ${r.url()}`));
    const posts = postsOf(page); // the funnel's beacons (decision 0036): nothing typed in them
    const calc = calculator(page);
    await walkToDetails(page);
    // The wizard's own Back keeps what was typed on step 5 (the browser's Back, like a page
    // without JavaScript, keeps only what was sent with a button).
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(page).toHaveURL(STEP_URL(4));
    // The address changes before the step is drawn: a Back pressed in between (no visitor is that
    // quick) returns to a step 5 that never left the screen, where focus rightly stays put.
    await expect(calc.getByRole("heading", { name: calculatorText.headings[4] })).toBeFocused();

    await page.goBack();
    await expect(page).toHaveURL(STEP_URL(5));
    await expect(calc.getByLabel("Email")).toHaveValue(details.email);
    await expect(calc.getByLabel("Your name (optional)")).toHaveValue(details.name);
    await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeFocused();
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calc.getByLabel("Project description")).toHaveValue(description);
    await expect(calc.getByRole("heading", { name: calculatorText.headings[4] })).toBeFocused();
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 3 of 5");
    await expect(calc.getByRole("button", { name: "Complex" })).toHaveAttribute("aria-current", "true");
    await page.goForward();
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calc.getByLabel("Project description")).toHaveValue(description);
    await page.goBack();
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
    await page.goBack();
    await expect(page).toHaveURL(/\/$/);
    await expect(progress(page)).toHaveText("Step 1 of 5");
    await expect(calc.getByRole("button", { name: "Software Development", exact: true })).toHaveAttribute("aria-current", "true");
    await page.goBack();
    await expect(page).toHaveURL(/\/about$/);

    // Nothing went to the server, and no address held anything typed.
    expect(requests.filter((r) => !r.startsWith("GET") || r.includes("_data="))).toEqual([]);
    expect(posts.beacons).not.toContain("unexpected fields");
    expect(seen.length).toBeGreaterThan(8);
    for (const url of seen) for (const typed of [description, ...Object.values(details)]) expect(decodeURIComponent(url)).not.toContain(typed);
  });

  test("a reload keeps the step and the answers; a new tab with the address starts at step 1; an address past the answers shows the furthest step they allow", async ({
    page,
    context,
  }) => {
    await page.goto("/");
    const calc = calculator(page);
    await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
    await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
    await expect(page).toHaveURL(STEP_URL(3));
    await page.reload();
    await expect(progress(page)).toHaveText("Step 3 of 5");
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)" }));
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByRole("button", { name: "Relaxed (5-8 weeks)" })).toHaveAttribute("aria-current", "true");

    const other = await context.newPage();
    const problems: string[] = [];
    other.on("pageerror", (e) => problems.push(e.message));
    await other.goto(page.url().replace(/step=\d/, "step=3"));
    await expect(progress(other)).toHaveText("Step 1 of 5");
    await expect(calculator(other).getByRole("button", { name: "AI Solutions", exact: true })).not.toHaveAttribute("aria-current", "true");
    expect(problems).toEqual([]);

    // A service and a timeframe are all step 5 needs (the description is optional).
    await page.goto("/?step=5#wizard");
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calc.locator("tfoot")).toContainText(priceOf({ service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)" }));
  });

  test("after a send, Back does not offer the sent answers again: their steps start over; a new estimate begun on the thanks outlives Back to them and Forward again", async ({
    page,
    formService,
  }) => {
    const calc = calculator(page);
    await sendFromHome(page, formService.token);
    await page.goBack();
    await expect(page).toHaveURL(STEP_URL(5));
    await expect(progress(page)).toHaveText("Step 1 of 5");
    await expect(calc.getByRole("button", { name: "Software Development", exact: true })).not.toHaveAttribute("aria-current", "true");
    await page.reload();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(details.email);

    await page.goForward();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
    await expect(page).toHaveURL(STEP_URL(2));
    await expect(progress(page)).toHaveText("Step 2 of 5"); // drawn, as a visitor sees it before Back
    await page.goBack();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    await page.goForward();
    await expect(page).toHaveURL(STEP_URL(2));
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions" }));
    expect(await formService.settled()).toHaveLength(1);
  });

  test("the services tab keeps its place through the steps, and changing it adds no history entry", async ({ page }) => {
    await page.goto("/");
    const tab = (name: string) => page.getByRole("tab", { name });
    await tab("AI Solutions").click();
    await expect(page).toHaveURL(/\/\?service=ai$/);
    const calc = calculator(page);
    await calc.getByRole("button", { name: "Zoho Solutions", exact: true }).click();
    await expect(page).toHaveURL(/\/\?service=ai&step=2#wizard$/);
    await expect(tab("AI Solutions")).toHaveAttribute("aria-selected", "true");
    await tab("SEO & Digital Marketing").click();
    await expect(page).toHaveURL(/\/\?service=seo&step=2$/);
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await expect(page).toHaveURL(/\/\?service=seo&step=3#wizard$/);
    await page.goBack();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await page.goBack();
    await expect(page).toHaveURL(/\/\?service=ai$/);
    await expect(progress(page)).toHaveText("Step 1 of 5");
  });

  test("what is typed on step 5 stays through its own estimate link and Back, and a reload, as the pages without JavaScript keep it, with the estimate and the answers before it", async ({
    page,
  }) => {
    await page.goto("/");
    const calc = calculator(page);
    await walkToDetails(page);
    await clickStill(calc.getByRole("link", { name: calculatorText.keepLink }));
    await expect(page).toHaveURL(/\/estimate\?/);
    const typed = async () => {
      await expect(progress(page)).toHaveText("Step 5 of 5");
      await expect(calc.getByLabel("Your name (optional)")).toHaveValue(details.name);
      await expect(calc.getByLabel("Company name")).toHaveValue(details.company);
      await expect(calc.getByLabel("Email")).toHaveValue(details.email);
      await expect(calc.getByLabel("Phone")).toHaveValue(details.phone);
    };
    await page.goBack();
    await expect(page).toHaveURL(STEP_URL(5));
    await typed();
    await page.reload();
    await typed();
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex" }));
    // Still nothing typed in an address.
    expect(decodeURIComponent(page.url())).not.toContain(details.email);
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByLabel("Project description")).toHaveValue(description);
  });
});

// Where a step lands matters most where the wizard is far down a narrow page.
test.describe("with JavaScript, at 390 px", { tag: "@needs-js" }, () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("each step lands at the wizard's card under the header with focus on its heading, never at the top of the page", async ({ page }) => {
    await page.goto("/#calculator");
    const calc = calculator(page);
    const header = page.locator(".site-header");
    for (const [choice, step] of [
      ["Mobile App Development", 2],
      ["Standard (3-4 weeks)", 3],
    ] as const) {
      await calc.getByRole("button", { name: choice }).click();
      await expect(calc.getByRole("heading", { name: calculatorText.headings[step] })).toBeFocused();
      await expect(progress(page)).toBeInViewport();
      const bar = await header.boundingBox();
      expect((await progress(page).boundingBox())!.y).toBeGreaterThanOrEqual(bar!.y + bar!.height - 1);
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    }
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByRole("heading", { name: calculatorText.headings[2] })).toBeFocused();
  });
});

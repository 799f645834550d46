/** The wizard's steps: without JavaScript pages answered 303 (decision 0016); with it addresses and history entries, answers kept in the tab (0025). */
import type { Page } from "@playwright/test";
import { COMPLEXITIES, TIMEFRAMES } from "../app/calculator/pricing";
import { calculatorText } from "../app/content/calculator";
import { LEVELS } from "../app/content/levels";
import { messages } from "../app/content/messages";
import { clickStill, expect, expectBelowHeader, forTheEye, hydrated, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, DRAFT_URL, fillDetails, postsOf, priceOf, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const details = { name: "Thandi Nkosi", company: "Gauteng Freight", email: "ops@gautengfreight.co.za", phone: "+27 11 555 0101" };
const STEP_URL = (step: number) => new RegExp(`/\\?step=${step}#wizard$`);

test.describe("without JavaScript, every step is a page of its own", { tag: "@without-js" }, () => {
  test("each step's post is answered 303 with a GET of the step, so reload and Back never send a form again", async ({ page }) => {
    const posts = postsOf(page).pages;
    await atStep5(page, dispatchApp, { walk: true });
    expect(posts).toEqual([303, 303, 303, 303]);
    await expect(page).toHaveURL(DRAFT_URL);
    expect((await page.reload())?.request().method()).toBe("GET");
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calculator(page).locator(".estimate")).toContainText(priceOf(dispatchApp));
    // A POST's history entry would need the form again (ERR_CACHE_MISS: no-store); a GET's shows the latest answers.
    const back = await page.goBack();
    if (back) expect(back.request().method()).toBe("GET");
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calculator(page).getByLabel("Project description")).toHaveValue(dispatchApp.description);
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

  // The home page without a draft, public and the same for everyone, is caching.spec's.
  test("a step's page is one visitor's own (private, no-store), its data too", async ({ request }) => {
    const posted = await request.post("/?index", { form: { formName: "calculator", "state.step": "1", service: "ai" }, maxRedirects: 0 });
    expect(posted.status()).toBe(303);
    const location = posted.headers()["location"]!;
    expect(location).toMatch(/^\/\?draft=[\w-]{22}&step=2#wizard$/);
    const step = await request.get(location);
    expect([step.status(), step.headers()["cache-control"]]).toEqual([200, "private, no-store"]);
    expect(await step.text()).toMatch(/Step (<!-- -->)?2(<!-- -->)? of/);
    const data = await request.get(`${location.split("#")[0]}&_data=routes%2F_index`);
    expect(data.headers()["cache-control"]).toBe("private, no-store");
    expect(((await data.json()) as { draft: { state: { service: string } } }).draft.state.service).toBe("ai");
  });
});

test("Estimate this on /services opens step 2 with its service at the wizard's card, choices in view, at three widths", async ({ page, javaScriptEnabled }) => {
  for (const [width, height] of WIZARD_VIEWPORTS) {
    await page.setViewportSize({ width, height });
    // A new wizard each time: the last one's answers stay in the tab.
    await page.evaluate(() => sessionStorage.clear()).catch(() => undefined);
    await page.goto("/services");
    const posts = postsOf(page);
    await page.getByRole("button", { name: "Estimate this for AI Solutions" }).click();
    // With JavaScript the server keeps nothing (decision 0025) but the funnel's count of step 2 (0036).
    await expect(page).toHaveURL(javaScriptEnabled ? STEP_URL(2) : DRAFT_URL);
    if (!javaScriptEnabled) {
      // A page of its own, there at once, not by a smooth scroll from the top of the page: read as it loads, no retry.
      await page.waitForLoadState("load");
      const top = await page.evaluate(() => document.querySelector("#wizard")!.getBoundingClientRect().top);
      expect(top >= 0 && top < height / 2, `${width} px: ${top}`).toBe(true);
    }
    expect(posts.forms).toHaveLength(javaScriptEnabled ? 0 : 1);
    await expect.poll(() => posts.beacons).toEqual(javaScriptEnabled ? ["2"] : []);
    const calc = calculator(page);
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions" }));
    if (javaScriptEnabled) await expect(calc.getByRole("heading", { name: calculatorText.headings[2] })).toBeFocused();
    // With JavaScript the lines on the levels come with the rules, loaded as the step shows (nothing loaded them before).
    await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)", exact: true })).toHaveAccessibleDescription(LEVELS.ai.urgent);
    await expectBelowHeader(progress(page));
    const choices = ["Urgent (1-2 weeks)", "Standard (3-4 weeks)", "Relaxed (5-8 weeks)"];
    // On the smallest phones the first choice is in view; from 390 px all of them are.
    for (const name of width < 390 ? choices.slice(0, 1) : choices) await expect(calc.getByRole("button", { name })).toBeInViewport();
    await forTheEye(page, `estimate-this-${width}`);
    if (javaScriptEnabled) continue;
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    const services = ["Software Development", "Mobile App Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"];
    for (const name of width < 390 ? services.slice(0, 1) : services) await expect(calc.getByRole("button", { name, exact: true })).toBeInViewport();
  }
});

test.describe("each step grounded in the service, the answers so far in view", () => {
  test("steps 2 and 3 say beside each choice what it means for the service chosen; the choice's name stays its label", async ({ page }) => {
    await page.goto("/");
    const calc = calculator(page);
    await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
    for (const [options, next] of [
      [TIMEFRAMES, "Standard (3-4 weeks)"],
      [COMPLEXITIES, "Complex"],
    ] as const) {
      for (const { label, value } of options) {
        await expect(calc.getByRole("button", { name: label, exact: true })).toHaveAccessibleDescription(LEVELS.ai[value]);
        await expect(calc.getByText(LEVELS.ai[value], { exact: true })).toBeVisible();
      }
      await calc.getByRole("button", { name: next, exact: true }).click();
    }
    await expect(progress(page)).toHaveText("Step 4 of 5");
  });

  test("from step 2 to 4 the answers so far are in view on a phone, each with a Change that comes back to the step", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const calc = calculator(page);
    const answers = calc.getByRole("region", { name: calculatorText.summaryTitle });
    const chosen = ["AI Solutions", "Standard (3-4 weeks)", "Complex"];
    for (const [i, choice] of chosen.entries()) {
      await calc.getByRole("button", { name: choice, exact: true }).click();
      await expect(progress(page)).toHaveText(`Step ${i + 2} of 5`);
      await expect(answers.locator("dt")).toHaveText(["Service", "Timeframe", "Complexity"].slice(0, i + 1));
      await expect(answers.locator(".summary-value")).toHaveText(chosen.slice(0, i + 1));
      await expect(answers).toBeInViewport();
    }
    await calc.getByLabel("Project description").fill("A chatbot for our support desk");
    await calc.getByRole("button", { name: "Change service" }).click();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    await calc.getByRole("button", { name: "Zoho Solutions", exact: true }).click();
    // Back at step 4, not past it, with what was typed there.
    await expect(progress(page)).toHaveText("Step 4 of 5");
    await expect(calc.getByLabel("Project description")).toHaveValue("A chatbot for our support desk");
    await expect(answers.locator(".summary-value")).toHaveText(["Zoho Solutions", ...chosen.slice(1)]);
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "Zoho Solutions", timeframe: chosen[1], complexity: chosen[2] }));
  });

  test("on a 390 × 844 phone step 5 opens with its figure and Company name within the top 660 px", async ({ page, javaScriptEnabled }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    // With JavaScript step 4's Continue, focus then on the heading; without it, the step's page at #wizard.
    await atStep5(page, dispatchApp);
    const calc = calculator(page);
    if (javaScriptEnabled) await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeFocused();
    else await page.waitForLoadState("load");
    // As the step is shown: read once, no retry (the page, not the test, puts them there).
    const bottoms = await Promise.all(
      [calc.locator(".estimate"), calc.getByLabel("Company name")].map((l) => l.evaluate((el) => el.getBoundingClientRect().bottom)),
    );
    expect(
      bottoms.every((bottom) => bottom <= 660),
      `bottoms ${bottoms.join(", ")}`,
    ).toBe(true);
    await expectBelowHeader(calc.locator(".estimate"));
    await expect(calc.locator(".estimate")).toContainText(priceOf(dispatchApp));
  });
});

test.describe("with JavaScript, the wizard's steps are history", { tag: "@needs-js" }, () => {
  /** From the page as it is, through steps 1-4 by clicks, each an address, to step 5 with the details typed in. */
  async function walkToDetails(page: Page) {
    const calc = calculator(page);
    for (const [step, choice] of [dispatchApp.service, dispatchApp.timeframe, dispatchApp.complexity].entries()) {
      await calc.getByRole("button", { name: choice, exact: true }).click();
      await expect(page).toHaveURL(STEP_URL(step + 2));
    }
    await calc.getByLabel("Project description").fill(dispatchApp.description);
    await calc.getByRole("button", { name: "Continue" }).click();
    await expect(page).toHaveURL(STEP_URL(5));
    await fillDetails(page, details);
    return calc;
  }

  test("a step-5 page from the server (a draft) hydrates its breakdown as it arrives, without an error; a Change then runs here", async ({ page }) => {
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    const form = {
      formName: "calculator",
      "state.step": "4",
      "state.service": "ai",
      "state.timeframe": "standard",
      "state.complexity": "complex",
      intent: "continue",
    };
    const answer = await page.request.post("/?index", { form, maxRedirects: 0 });
    expect(answer.headers()["location"]).toMatch(DRAFT_URL);
    await page.goto(answer.headers()["location"]!);
    await hydrated(page);
    const calc = calculator(page);
    await expect(calc.locator(".estimate-parts tfoot")).toContainText("USD 4,500");
    await calc.getByRole("button", { name: "Change complexity" }).click();
    await calc.getByRole("button", { name: "Simple", exact: true }).click();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calc.locator(".estimate-parts tfoot")).toContainText("USD 2,400");
    expect(errors).toEqual([]);
  });

  test("each step is an address and a history entry: Back and Forward walk the latest answers", async ({ page }) => {
    await page.goto("/about");
    await page.goto("/");
    const seen: string[] = [];
    page.on("framenavigated", (frame) => frame === page.mainFrame() && seen.push(frame.url()));
    const requests: string[] = [];
    page.on("request", (r) => r.resourceType() !== "script" && !r.url().endsWith("/steps") && requests.push(`${r.method()} ${r.url()}`));
    const posts = postsOf(page); // the funnel's beacons (decision 0036): nothing typed in them
    const calc = await walkToDetails(page);
    const at = async (step: number, focused = true) => {
      await expect(progress(page)).toHaveText(`Step ${step} of 5`);
      if (focused) await expect(calc.getByRole("heading", { name: calculatorText.headings[step as 1] })).toBeFocused();
    };
    // The wizard's own Back keeps what was typed on step 5 (the browser's Back, like a page
    // without JavaScript, keeps only what was sent with a button).
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(page).toHaveURL(STEP_URL(4));
    // The address changes before the step is drawn: wait for it, as a visitor would, before Back.
    await at(4);
    await page.goBack();
    await expect(page).toHaveURL(STEP_URL(5));
    await at(5);
    await expect(calc.getByLabel("Email")).toHaveValue(details.email);
    await expect(calc.getByLabel("Your name (optional)")).toHaveValue(details.name);
    await page.goBack();
    await at(4);
    await expect(calc.getByLabel("Project description")).toHaveValue(dispatchApp.description);
    await page.goBack();
    await at(3, false);
    await expect(calc.getByRole("button", { name: "Complex" })).toHaveAttribute("aria-current", "true");
    await page.goForward();
    await at(4, false);
    await expect(calc.getByLabel("Project description")).toHaveValue(dispatchApp.description);
    await page.goBack();
    await page.goBack();
    await at(2, false);
    await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
    await page.goBack();
    await expect(page).toHaveURL(/\/$/);
    await at(1, false);
    await expect(calc.getByRole("button", { name: "Software Development", exact: true })).toHaveAttribute("aria-current", "true");
    await page.goBack();
    await expect(page).toHaveURL(/\/about$/);
    expect(requests.filter((r) => !r.startsWith("GET") || r.includes("_data="))).toEqual([]);
    expect(posts.beacons).not.toContain("unexpected fields");
    expect(seen.length).toBeGreaterThan(8);
    for (const url of seen) for (const typed of [dispatchApp.description, ...Object.values(details)]) expect(decodeURIComponent(url)).not.toContain(typed);
  });

  test("a reload keeps the step, never drawing step 1 first; a new tab starts at 1; a step past the answers shows the furthest", async ({ page, context }) => {
    // Hydration finds the page React rendered: no error, no recovered mismatch, in either tab.
    const problems: string[] = [];
    context.on("weberror", (e) => problems.push(e.error().message));
    context.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto("/");
    const calc = calculator(page);
    for (const choice of ["AI Solutions", "Relaxed (5-8 weeks)"]) await calc.getByRole("button", { name: choice, exact: true }).click();
    await expect(page).toHaveURL(STEP_URL(3));
    // The page's scripts held back: what the visitor sees between the server's page and hydration.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/build\/.*\.js$/, async (route) => (await held, route.fallback()));
    await page.reload({ waitUntil: "commit" });
    await expect(progress(page)).toBeAttached();
    await expect(progress(page)).toBeHidden();
    await expect(calc.getByRole("button", { name: "AI Solutions", exact: true })).toBeHidden();
    release();
    await expect(progress(page)).toHaveText("Step 3 of 5");
    await expect(progress(page)).toBeVisible();
    const figure = priceOf({ service: "AI Solutions", timeframe: "Relaxed (5-8 weeks)" });
    await expect(calc.locator(".estimate")).toContainText(figure);
    // The page stays marked, and the wizard's own step 1 shows at once.
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByRole("button", { name: "Relaxed (5-8 weeks)" })).toHaveAttribute("aria-current", "true");
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    await expect(progress(page)).toBeVisible();
    await expect(calc.getByRole("button", { name: "AI Solutions", exact: true })).toBeVisible();
    const other = await context.newPage();
    await other.goto(page.url().replace(/step=\d/, "step=3"));
    await expect(progress(other)).toHaveText("Step 1 of 5");
    await expect(calculator(other).getByRole("button", { name: "AI Solutions", exact: true })).not.toHaveAttribute("aria-current", "true");
    expect(problems).toEqual([]);
    // A service and a timeframe are all step 5 needs (the description is optional).
    await page.goto("/?step=5#wizard");
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calc.locator("tfoot")).toContainText(figure);
  });

  test("after a send Back offers no sent answer; a new estimate outlives Back to the thanks and Forward", async ({ page, formService }) => {
    await page.goto("/");
    const calc = await walkToDetails(page);
    await calc.getByLabel("Company name").fill(`${details.company} ${formService.token}`);
    await clickStill(calc.getByRole("button", { name: "Send My Request" }));
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
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

  // Where a step lands matters most where the wizard is far down a narrow page.
  test("at 390 px steps 1-4 advance without a request, each landing at the wizard's card under the header, focus on its heading", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/#calculator");
    const posts = postsOf(page);
    const calc = calculator(page);
    const step = async (click: string, heading: string, landed = true) => {
      await calc.getByRole("button", { name: click }).click();
      await expect(calc.getByRole("heading", { name: heading })).toBeFocused();
      if (!landed) return;
      await expectBelowHeader(progress(page));
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    };
    await step("SEO & Digital Marketing", calculatorText.headings[2]);
    await step("Standard (3-4 weeks)", calculatorText.headings[3]);
    await step("Back", calculatorText.headings[2], false);
    await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await calc.getByRole("button", { name: "Medium" }).click();
    await calc.getByLabel("Project description").fill("Local SEO for three branches");
    await step("Continue", calculatorText.headings[5], false);
    expect(posts.forms).toEqual([]);
    // Only the funnel's beacons: each step once, the one taken again after Back not again.
    await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
  });
});

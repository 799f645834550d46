/**
 * The calculator without JavaScript (decision 0016): each step's post is answered 303 with a page
 * of the step (`/?draft=<id>&step=<n>#wizard`), so reload, Back and Forward never send a form
 * again (a step with errors is such a page too: error-summary.spec.ts); a step's page is its
 * visitor's own; an unknown or expired one starts the calculator again with a note; and each
 * lands at the wizard's card. With JavaScript the steps are calculator-history.spec.ts's.
 */
import type { Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { expect, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, DRAFT_URL, priceOf, progress, WIZARD_VIEWPORTS } from "./support/wizard";

const upToDetails = (page: Page, { walk = false } = {}) => atStep5(page, dispatchApp, { walk });

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
    await expect(calculator(page).locator(".estimate")).toContainText(priceOf(dispatchApp));

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

// With JavaScript steps 1-4 stay where they are (calculator-history.spec.ts).
test("at 320, 390 and 1280 px a step page lands at the wizard's card with the step's choices in view", { tag: "@without-js" }, async ({ page }) => {
  for (const [width, height] of WIZARD_VIEWPORTS) {
    await page.setViewportSize({ width, height });
    await page.goto("/#calculator");
    await calculator(page).getByRole("button", { name: "Mobile App Development" }).click();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    // There at once, not by a smooth scroll from the top of the page: read as it loads, no retry.
    await page.waitForLoadState("load");
    const top = await page.evaluate(() => document.querySelector("#wizard")!.getBoundingClientRect().top);
    expect(top, `${width} px`).toBeGreaterThanOrEqual(0);
    expect(top, `${width} px`).toBeLessThan(height / 2);
    await expect(progress(page)).toBeInViewport();
    const header = await page.locator(".site-header").boundingBox();
    expect((await progress(page).boundingBox())!.y).toBeGreaterThanOrEqual(header!.y + header!.height);
    await expect(calculator(page).getByRole("button", { name: "Urgent (1-2 weeks)" })).toBeInViewport();
    await calculator(page).getByRole("button", { name: "Back" }).click();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    const services = ["Software Development", "Mobile App Development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"];
    for (const name of width < 390 ? services.slice(0, 1) : services)
      await expect(calculator(page).getByRole("button", { name, exact: true })).toBeInViewport();
  }
});

/**
 * Estimate This: the button on each service, on /services and on the home page's selected tab,
 * opens the calculator at step 2 with that service chosen and its choices in view under the
 * header, at 320, 390 and 1280 px; with JavaScript the browser takes the step itself (decision
 * 0025), without it the step is a page of its own.
 */
import { calculatorText } from "../app/content/calculator";
import { expect, forTheEye, test } from "./support/fixtures";
import { calculator, DRAFT_URL, postsOf, priceOf, progress, WIZARD_VIEWPORTS } from "./support/wizard";

test("Estimate this on /services opens the calculator at step 2 with that service chosen, its choices in view under the header, at 320, 390 and 1280 px", async ({
  page,
  javaScriptEnabled,
}) => {
  for (const [width, height] of WIZARD_VIEWPORTS) {
    await page.setViewportSize({ width, height });
    // A new wizard each time: the last one's answers stay in the tab.
    await page.evaluate(() => sessionStorage.clear()).catch(() => undefined);
    await page.goto("/services");
    const posts = postsOf(page);
    await page.getByRole("button", { name: "Estimate this for AI Solutions" }).click();
    // With JavaScript the browser takes the step itself and the server keeps nothing (decision 0025)
    // but the funnel's count of step 2 (decision 0036).
    await expect(page).toHaveURL(javaScriptEnabled ? /\/\?step=2#wizard$/ : DRAFT_URL);
    expect(posts.forms).toHaveLength(javaScriptEnabled ? 0 : 1);
    await expect.poll(() => posts.beacons).toEqual(javaScriptEnabled ? ["2"] : []);
    const calc = calculator(page);
    await expect(progress(page)).toHaveText("Step 2 of 5");
    await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions" }));
    if (javaScriptEnabled) await expect(calc.getByRole("heading", { name: calculatorText.headings[2] })).toBeFocused();
    await expect(progress(page)).toBeInViewport();
    const header = await page.locator(".site-header").boundingBox();
    expect((await progress(page).boundingBox())!.y, `${width} px`).toBeGreaterThanOrEqual(header!.y + header!.height);
    const choices = ["Urgent (1-2 weeks)", "Standard (3-4 weeks)", "Relaxed (5-8 weeks)"];
    // On the smallest phones the first choice is in view; from 390 px all of them are.
    for (const name of width < 390 ? choices.slice(0, 1) : choices) await expect(calc.getByRole("button", { name })).toBeInViewport();
    await forTheEye(page, `estimate-this-${width}`);
  }
});

test("Estimate this on the home page's selected service tab opens step 2 with it chosen, the tab still selected", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "SEO & Digital Marketing" }).click();
  await page.getByRole("button", { name: "Estimate this for SEO & Digital Marketing" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  if (test.info().project.use.javaScriptEnabled)
    await expect(page.getByRole("tab", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-selected", "true");
  await expect(calculator(page).locator(".estimate")).toContainText(priceOf({ service: "SEO & Digital Marketing" }));
  await calculator(page).getByRole("button", { name: "Back" }).click();
  await expect(calculator(page).getByRole("button", { name: "SEO & Digital Marketing" })).toHaveAttribute("aria-current", "true");
  // Marked by more than colour: a tick, which a submit input can only have as a picture.
  await expect(calculator(page).getByRole("button", { name: "SEO & Digital Marketing" })).toHaveCSS("background-image", /^url\("data:image\/svg\+xml/);
  await expect(calculator(page).getByRole("button", { name: "AI Solutions", exact: true })).toHaveCSS("background-image", "none");
});

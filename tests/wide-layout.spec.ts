/** At 1280 px, no section leaves a wide, tall band empty beside its content, with JavaScript on and off. */
import type { Locator } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { tallestBlank } from "./support/blank-area";
import { calculator, dispatchApp, progress } from "./support/wizard";

const WIDTH = 1280;
/** A band wider than a third of the screen and taller than 300 px is a blank band. */
const BAND = { width: WIDTH / 3, height: 300 };

/** The blank band in `section`, as a line to read in a failure, or null. */
async function blankBand(section: Locator, where: string) {
  const blank = await tallestBlank(section, BAND.width);
  if (!blank || blank.height <= BAND.height) return null;
  return `${where}: ${Math.round(blank.width)} × ${Math.round(blank.height)} px empty at (${Math.round(blank.x)}, ${Math.round(blank.y)})`;
}

test.describe("no blank band at 1280 px", () => {
  test.use({ viewport: { width: WIDTH, height: 800 } });

  test("beside the calculator, at each of its five steps", async ({ page }) => {
    const calc = calculator(page);
    const section = page.locator("#calculator");
    const bands: (string | null)[] = [];
    await page.goto("/");
    await expect(progress(page)).toHaveText("Step 1 of 5");
    bands.push(await blankBand(section, "step 1"));
    for (const [i, choice] of [dispatchApp.service, dispatchApp.timeframe, dispatchApp.complexity].entries()) {
      await calc.getByRole("button", { name: choice, exact: true }).click();
      await expect(progress(page)).toHaveText(`Step ${i + 2} of 5`);
      bands.push(await blankBand(section, `step ${i + 2}`));
    }
    await calc.getByLabel("Project description").fill(dispatchApp.description);
    await calc.getByRole("button", { name: "Continue" }).click();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    bands.push(await blankBand(section, "step 5"));
    expect(bands.filter(Boolean)).toEqual([]);
  });

  test("beside the contact form", async ({ page }) => {
    await page.goto("/");
    expect(await blankBand(page.locator("#contact"), "#contact")).toBeNull();
  });

  test("in any section of /services", async ({ page }) => {
    await page.goto("/services");
    const sections = await page.locator("main section").all();
    expect(sections.length).toBeGreaterThanOrEqual(4); // a section a service, then the testimonials and the call to action
    const bands = await Promise.all(sections.map(async (s) => blankBand(s, (await s.getAttribute("aria-labelledby"))!)));
    expect(bands.filter(Boolean)).toEqual([]);
  });
});

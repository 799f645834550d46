/**
 * Texts at and past their bound of 5,000 characters, with line breaks and emoji (two UTF-16 units
 * each; a break posted without JavaScript is two characters): no box cuts one (decision 0044).
 */
import type { Locator, Page } from "@playwright/test";
import { messages } from "../app/content/messages";
import { calculatorText } from "../app/content/calculator";
import { LIMITS } from "../app/forms/limits";
import { expect, test } from "./support/fixtures";
import { calculator, contactForm, fillDetails, fillValues, progress, sendRequest } from "./support/wizard";

/** A text of exactly `count` characters: lines of sentences, then emoji to the end (each two UTF-16 units). */
function textOf(count: number, emoji = 40) {
  const words = "We sell spares to 40 workshops.\nWe want orders online. ";
  const text = `${words.repeat(Math.ceil(count / words.length)).slice(0, count - emoji - 1)} ${"🛒".repeat(emoji)}`;
  expect([...text]).toHaveLength(count); // characters as a person counts them: an emoji is one
  return text;
}

/** Every line of `text` is in what the agency received (a later line of a field is quoted there). */
const receivedWhole = (received: string, text: string) => {
  for (const line of text.split("\n")) expect(received).toContain(line.trim());
};

/** What a long text's box says of its bound until the visitor types (all it says without JavaScript). */
const BOUND = `At most ${LIMITS.description.toLocaleString("en")} characters.`;
/** The box's count, and the polite live region a screen reader hears it from. */
const countOf = (field: Locator) => field.locator("xpath=following-sibling::p[contains(@class, 'count')]");

async function toStep4(page: Page) {
  await page.goto("/");
  const calc = calculator(page);
  for (const choice of ["AI Solutions", "Relaxed (5-8 weeks)", "Simple"]) await calc.getByRole("button", { name: choice, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  return calc.getByLabel("Project description");
}

test("a description or message past the bound: kept, refused with its length; at it: sent whole", async ({ page, formService, javaScriptEnabled }) => {
  const box = await toStep4(page);
  await expect(box).not.toHaveAttribute("maxlength");
  await expect(box).toHaveAccessibleDescription(`${calculatorText.descriptionHint} ${BOUND}`);
  const tooLong = textOf(5_100);
  await box.fill(tooLong);
  await expect(box).toHaveValue(tooLong);
  if (javaScriptEnabled) {
    const count = countOf(box);
    await expect(count).toHaveText("100 characters too many");
    await expect(count).toHaveAttribute("data-over", "true");
    // The bound it said until then has given way to the count.
    await expect(box).toHaveAccessibleDescription(`${calculatorText.descriptionHint} 100 characters too many`);
  }
  const calc = calculator(page);
  await calc.getByRole("button", { name: "Continue" }).click();
  const said = "Description must be at most 5,000 characters; this one has 5,100";
  await expect(box).toHaveAccessibleDescription(new RegExp(`${said}$`));
  await expect(calc.getByRole("link", { name: said })).toBeVisible();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  // Without JavaScript this is the server's page of the step: the text is there all the same.
  await expect(box).toHaveValue(tooLong);

  const description = textOf(5_000);
  expect(description.length).toBe(5_040); // what a maxLength of 5,000 had cut
  await box.fill(description);
  await expect(box).toHaveValue(description);
  if (javaScriptEnabled) await expect(countOf(box)).toHaveText("0 characters left");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await fillDetails(page, { company: `Spares Co ${formService.token}`, email: "orders@spares.example", phone: "011 555 0142" });
  await sendRequest(page);
  const [received] = (await formService.settled()) as { message: string }[];
  receivedWhole(received!.message, description);

  // The contact form's message the same, on the page of the thanks.
  const form = contactForm(page);
  const message = form.getByLabel("Message");
  await expect(message).not.toHaveAttribute("maxlength");
  await expect(message).toHaveAccessibleDescription(BOUND);
  await fillValues(form, { Name: `Lerato Mokoena ${formService.token}`, Email: "lerato@mokoena.co.za", Service: "ai", Message: tooLong });
  await expect(message).toHaveValue(tooLong);
  if (javaScriptEnabled) await expect(countOf(message)).toHaveText("100 characters too many");
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(message).toHaveAccessibleDescription(/Message must be at most 5,000 characters; this one has 5,100$/);
  await expect(message).toHaveValue(tooLong);
  await message.fill(description);
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  receivedWhole(((await formService.settled()) as { message: string }[])[1]!.message, description);
});

test("with JavaScript the room left counts down, an emoji one, heard once typing stops", { tag: "@needs-js" }, async ({ page }) => {
  await page.clock.install();
  const box = await toStep4(page);
  // From here the page's timers run only as the test moves its clock.
  await page.clock.pauseAt(Date.now() + 60_000);
  const count = countOf(box);
  const heard = count.locator("xpath=following-sibling::p[@aria-live='polite']");
  // Not a live region itself: it changes at every key.
  await expect(count).not.toHaveAttribute("aria-live");
  await expect(count).toHaveText(BOUND);
  await box.pressSequentially("Spares 🛒");
  await expect(count).toHaveText("4,992 characters left");
  await page.clock.runFor(900);
  await expect(heard).toHaveText("");
  await box.press("!");
  await expect(count).toHaveText("4,991 characters left");
  await page.clock.runFor(900);
  await expect(heard).toHaveText("");
  await page.clock.runFor(200);
  await expect(heard).toHaveText("4,991 characters left");
});

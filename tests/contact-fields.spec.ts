/**
 * The contact form's fields stay where they are when one shows its message, with JavaScript on
 * (the browser's checks) and off (the server's page with the mistakes): each field keeps room for
 * one line of message, and a field beside one with a message keeps its own layout.
 */
import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";

const form = (page: Page) => page.locator("#contact form");

/**
 * Where each field's label, control and the send button are, relative to the first label: a
 * notice or summary above the fields may move the whole form, never one field against another.
 */
async function layout(page: Page) {
  return form(page).evaluate((f) => {
    const origin = f.querySelector("label")!.getBoundingClientRect();
    return [...f.querySelectorAll(".field label, .field input, .field select, .field textarea, button[type=submit]")]
      .filter((el) => el.getClientRects().length > 0)
      .map((el) => {
        const box = el.getBoundingClientRect();
        return `${el.tagName.toLowerCase()} ${el.getAttribute("name") ?? el.textContent}: ${Math.round(box.x - origin.x)},${Math.round(box.y - origin.y)} ${Math.round(box.width)}×${Math.round(box.height)}`;
      });
  });
}

for (const width of [390, 1280]) {
  test(`at ${width} px, a field showing its message moves no field, nor do all four showing theirs`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/#contact");
    const contact = form(page);
    const empty = await layout(page);
    await contact.getByLabel("Name").fill("Lerato Mokoena");
    await contact.getByLabel("Email").fill("lerato@");
    await contact.getByLabel("Service").selectOption("seo");
    await contact.getByLabel("Message").fill("We need help with local search.");
    expect(await layout(page)).toEqual(empty);
    await contact.getByRole("button", { name: "Send Message" }).click();
    await expect(contact.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
    expect(await layout(page)).toEqual(empty);

    for (const field of ["Name", "Email", "Message"]) await form(page).getByLabel(field).fill("");
    await form(page).getByLabel("Service").selectOption("");
    await form(page).getByRole("button", { name: "Send Message" }).click();
    await expect(form(page).getByLabel("Message")).toHaveAccessibleDescription(/Please enter a message/);
    expect(await layout(page)).toEqual(empty);
  });
}

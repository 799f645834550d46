/**
 * Where focus goes with JavaScript on: in-page jumps and client-side page
 * changes move it to their target, so keyboard and screen-reader visitors are not left behind.
 * Without JavaScript the browser itself follows a link's fragment.
 */
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { expect, test } from "./support/fixtures";

// Focus is moved by script.
test.describe("focus", { tag: "@needs-js" }, () => {
  test("Get Started moves focus to the calculator's question, and the next Tab reaches its first choice", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("link", { name: "Get Started" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/#wizard$/);
    await expect(page.locator("#calculator").getByRole("heading", { name: calculatorText.headings[1] })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(page.locator("#calculator").getByRole("button", { name: "Software Development", exact: true })).toBeFocused();
  });

  test("a footer service link moves focus to that service's section on /services", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("contentinfo").getByRole("link", { name: "AI Solutions" }).click();
    await expect(page).toHaveURL(/\/services#ai-solutions$/);
    await expect(page.getByRole("heading", { name: "AI Solutions", level: 2 })).toBeFocused();
    await expect(page.getByRole("heading", { name: "AI Solutions", level: 2 })).toBeInViewport();
    // The same on /services itself: an in-page jump.
    await page.getByRole("contentinfo").getByRole("link", { name: "Zoho Solutions" }).click();
    await expect(page.getByRole("heading", { name: "Zoho Solutions", level: 2 })).toBeFocused();
  });

  test("a client-side page change moves focus to the new page's h1, which names it", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" }).click();
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.locator("main h1")).toBeFocused();
    await page.goBack();
    await expect(page.locator("main h1")).toBeFocused();
    await expect(page.locator("main h1")).toHaveAccessibleName(/.+/);
  });

  test("switching service tabs leaves focus on the tab", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("tab", { name: "Zoho Solutions" }).click();
    await expect(page.getByRole("tab", { name: "Zoho Solutions" })).toBeFocused();
  });

  test("after a contact message is sent, focus is on the thanks and the next Tab reaches the empty form", async ({ page, formService }) => {
    await page.goto("/");
    const form = page.locator("#contact");
    await form.getByLabel("Name").fill(`Focus ${formService.token}`);
    await form.getByLabel("Email").fill("focus@example.co.za");
    await form.getByLabel("Service").selectOption("seo");
    await form.getByLabel("Message").fill("Hello");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    await expect(form.getByRole("status")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(form.getByLabel("Name")).toBeFocused();
  });
});

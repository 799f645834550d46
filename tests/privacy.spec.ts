/**
 * The privacy notice, with JavaScript on and off: /privacy says what is collected, why, who
 * receives it, where and how long it is kept, the visitor's rights and whom to ask; it is linked
 * from the footer and beside both forms' send buttons. What it says of the server's settings is
 * tests/ops/operator.spec.ts's.
 */
import { expect, test } from "./support/fixtures";
import { site } from "../app/content/site";

// Where the links are, not how they lay out: one phone width is enough.
test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("the privacy notice is linked from the footer and beside both forms' send buttons", async ({ page }) => {
    await page.goto("/services");
    await page.getByRole("contentinfo").getByRole("link", { name: "Privacy notice" }).click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Privacy notice");

    await page.goto("/");
    const contact = page.locator("#contact form");
    await expect(contact.getByRole("link", { name: "How we handle your data" })).toHaveAttribute("href", "/privacy");
    // The calculator's note shows at step 5, with the send button.
    const wizard = page.locator("#calculator");
    await wizard.getByRole("button", { name: "Software Development" }).click();
    await wizard.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await wizard.getByRole("button", { name: "Medium" }).click();
    await wizard.getByLabel("Project description").fill("A booking portal for our three clinics, with SMS reminders.");
    await wizard.getByRole("button", { name: "Continue" }).click();
    await expect(wizard.getByText("Step 5 of 5")).toBeVisible();
    const note = wizard.getByRole("link", { name: "How we handle your data" });
    await expect(note).toBeVisible();
    await note.click();
    await expect(page).toHaveURL(/\/privacy$/);
  });
});

test(
  "/privacy says what is collected, why, where and how long it is kept, who receives it, the rights and how and whom to ask",
  { tag: "@once" },
  async ({ page }) => {
    const response = await page.goto("/privacy");
    expect(response?.status()).toBe(200);
    const main = page.getByRole("main");
    for (const heading of [
      "What we collect",
      "Why we collect it",
      "Who receives it",
      "Where it is kept, and for how long",
      "Your rights",
      "How to ask",
      "Our information officer",
    ]) {
      await expect(main.getByRole("heading", { level: 2, name: heading })).toBeVisible();
    }
    await expect(main).toContainText(`Email our information officer at ${site.informationOfficer.email} with the email address or phone number you gave us`);
    await expect(main).toContainText("We also delete the copy Web3Forms emailed to our inbox.");
    await expect(main).toContainText("(gclid, fbclid, msclkid) are never kept");
    await expect(main).toContainText("30 days");
    await expect(main).toContainText("Web3Forms");
    await expect(main).toContainText(/refuses a message, it stays on our server until/);
    // What the lead store keeps of an address (decision 0031): a code, never the address.
    await expect(main).toContainText(/a code worked out from your address .* cannot be turned back into your address\. The code is deleted about an hour/);
    const officer = site.informationOfficer.email;
    await expect(main.getByRole("link", { name: officer })).toHaveAttribute("href", `mailto:${officer}`);
    await expect(page).toHaveTitle(/Privacy notice \|/);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", /\/privacy$/);
    // axe: accessibility.spec.ts checks /privacy at this width, in both projects and schemes.
    const sitemap = await (await page.request.get("/sitemap.xml")).text();
    expect(sitemap).toContain("/privacy</loc>");
  },
);

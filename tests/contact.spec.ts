import type { Locator, Page } from "@playwright/test";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { expect, test } from "./support/fixtures";
import { sites, TEST_ACCESS_KEY } from "./support/sites";

const contactForm = (page: Page) => page.locator("#contact");

async function fillIn(form: Locator, name: string, message: string) {
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Email").fill("lerato@mokoena.co.za");
  await form.getByLabel("Service").selectOption("ai");
  await form.getByLabel("Message").fill(message);
}

test("the contact form requires every field and shows a message next to each", async ({ page, formService }) => {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByLabel("Name")).toHaveAccessibleDescription(/Please enter your name/);
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription(/Please enter your email address/);
  await expect(form.getByLabel("Service")).toHaveAccessibleDescription("Please choose a service");
  await expect(form.getByLabel("Message")).toHaveAccessibleDescription(/Please enter a message/);
  for (const name of ["Name", "Email", "Service", "Message"]) await expect(form.getByLabel(name)).toHaveAttribute("aria-invalid", "true");
  expect(await formService.settled()).toEqual([]);
});

test("the service select starts empty and offers the four services", { tag: "@once" }, async ({ page }) => {
  await page.goto("/");
  const select = contactForm(page).getByLabel("Service");
  await expect(select).toHaveValue("");
  await expect(select.locator("option")).toHaveText(["Choose a service", "Low-code development", "SEO & Digital Marketing", "AI Solutions", "Zoho Solutions"]);
  await expect(select.locator("option")).toHaveCount(5);
  expect(await select.locator("option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(["", "low-code", "seo", "ai", "zoho"]);
});

test("a bad email keeps what was typed and is not sent", async ({ page, formService }) => {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByLabel("Name").fill(`Lerato Mokoena ${formService.token}`);
  await form.getByLabel("Email").fill("lerato@");
  await form.getByLabel("Service").selectOption("seo");
  await form.getByLabel("Message").fill("We need help with local search.");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(form.getByLabel("Name")).toHaveValue(`Lerato Mokoena ${formService.token}`);
  await expect(form.getByLabel("Service")).toHaveValue("seo");
  await expect(form.getByLabel("Message")).toHaveValue("We need help with local search.");
  expect(await formService.settled()).toEqual([]);
});

test("a valid message is stored, confirmed, and delivered with its own subject", async ({ page, formService }) => {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByLabel("Name").fill(`Lerato Mokoena ${formService.token}`);
  await form.getByLabel("Email").fill("lerato@mokoena.co.za");
  await form.getByLabel("Service").selectOption({ label: "Zoho Solutions" });
  await form.getByLabel("Message").fill("We run Zoho Books and want CRM too.");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  await expect(form.getByLabel("Name")).toHaveValue("");
  await expect(form.getByLabel("Service")).toHaveValue("");

  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
  expect(payload).toMatchObject({ access_key: TEST_ACCESS_KEY, to: site.email, from_name: `Lerato Mokoena ${formService.token}` });
  expect(payload!.subject).toBe(`New contact form message from Lerato Mokoena ${formService.token}`);
  expect(payload!.message).toContain("Zoho Solutions");
  expect(payload!.message).toContain("lerato@mokoena.co.za");
  expect(payload!.message).toContain("We run Zoho Books and want CRM too.");
});

test("a message that cannot be stored shows the failure text and keeps everything typed", async ({ page }) => {
  await page.goto(`${sites.unwritable.url}/`);
  const form = contactForm(page);
  await fillIn(form, "Lerato Mokoena", "Keep me.");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByRole("alert")).toHaveText(messages.contactFailed);
  await expect(form.getByLabel("Name")).toHaveValue("Lerato Mokoena");
  await expect(form.getByLabel("Message")).toHaveValue("Keep me.");
  await expect(form.getByLabel("Service")).toHaveValue("ai");
});

test("a bot that fills the honeypot sees success and nothing is sent", async ({ page, formService, javaScriptEnabled }) => {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByLabel("Name").fill(`Bot ${formService.token}`);
  await form.getByLabel("Email").fill("bot@example.com");
  await form.getByLabel("Service").selectOption("ai");
  await form.getByLabel("Message").fill("Buy now");
  await form.locator('input[name="website"]').fill("http://spam.example", { force: true });
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  expect(await formService.settled()).toEqual([]);
  // The honeypot is hidden from assistive technology.
  expect(javaScriptEnabled ? await form.getByRole("textbox", { name: /Leave this empty/ }).count() : 0).toBe(0);
});

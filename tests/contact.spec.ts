/**
 * The contact form on the home page, with JavaScript on and off: every field required with its
 * message beside it, a bad email kept and not sent, without JavaScript a form with mistakes as a
 * page of its own (and only its maker's), a valid message stored, confirmed and delivered with its
 * own subject, the failure text when it cannot be stored, and a bot's honeypot.
 */
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { expect, newClient, test } from "./support/fixtures";
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
  await form.getByRole("button", { name: "Send Message" }).click();
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

test("a bad email keeps what was typed and is not sent", async ({ page, formService, javaScriptEnabled }) => {
  await page.goto("/");
  const posts: string[] = [];
  page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
  const form = contactForm(page);
  await form.getByLabel("Name").fill(`Lerato Mokoena ${formService.token}`);
  await form.getByLabel("Email").fill("lerato@");
  await form.getByLabel("Service").selectOption("seo");
  await form.getByLabel("Message").fill("We need help with local search.");
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(form.getByLabel("Name")).toHaveValue(`Lerato Mokoena ${formService.token}`);
  await expect(form.getByLabel("Service")).toHaveValue("seo");
  await expect(form.getByLabel("Message")).toHaveValue("We need help with local search.");
  expect(await formService.settled()).toEqual([]);
  // With JavaScript the browser's own checks caught it; without, the server did (below).
  expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);
});

const typed = { name: "Lerato Mokoena", email: "lerato@", message: "We need help with local search." };

/** The form as a server answer with mistakes shows it: what was typed, and the email's message. */
async function showsTheMistake(form: Locator, name = typed.name) {
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(form.getByLabel("Email")).toHaveValue(typed.email);
  await expect(form.getByLabel("Name")).toHaveValue(name);
  await expect(form.getByLabel("Service")).toHaveValue("seo");
  await expect(form.getByLabel("Message")).toHaveValue(typed.message);
}

test.describe("without JavaScript", { tag: "@without-js" }, () => {
  test("a form with mistakes is answered 303 with a page of its own, so reload, Back and Forward are plain GETs with the values and messages; sending deletes it", async ({
    page,
    formService,
  }) => {
    const posts: number[] = [];
    page.on("response", (r) => r.request().isNavigationRequest() && r.request().method() === "POST" && posts.push(r.status()));
    await page.goto("/");
    const form = contactForm(page);
    const name = `${typed.name} ${formService.token}`;
    await fillIn(form, name, typed.message);
    await form.getByLabel("Email").fill(typed.email);
    await form.getByLabel("Service").selectOption("seo");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
    expect(posts).toEqual([303]);
    await showsTheMistake(form, name);
    const errorPage = page.url();

    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    await showsTheMistake(form, name);
    const back = await page.goBack();
    expect(back?.request().method()).toBe("GET");
    // The page before it (the browser may put back what was typed there, as it does for any form).
    await expect(page).toHaveURL(/\/$/);
    await expect(form.getByLabel("Email")).not.toHaveAttribute("aria-invalid");
    const forward = await page.goForward();
    expect(forward?.request().method()).toBe("GET");
    await showsTheMistake(form, name);
    expect(posts).toEqual([303]);

    await form.getByLabel("Email").fill("lerato@mokoena.co.za");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    expect(await formService.settled()).toHaveLength(1);
    // Sent: its page is gone, even for the browser that made it.
    await page.goto(errorPage);
    await expect(form.getByLabel("Name")).toHaveValue("");
    await expect(form.getByLabel("Email")).not.toHaveAttribute("aria-invalid");
  });

  test("a message the server cannot take keeps the page's draft, so the send that then goes through deletes it", async ({ page }) => {
    await page.goto(`${sites.unwritable.url}/`);
    const form = contactForm(page);
    await fillIn(form, typed.name, typed.message);
    await form.getByLabel("Email").fill(typed.email);
    await form.getByRole("button", { name: "Send Message" }).click();
    const id = /contact=([\w-]{22})/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    await form.getByLabel("Email").fill("lerato@mokoena.co.za");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(form.getByRole("alert")).toHaveText(messages.contactFailed);
    await expect(form.locator('input[name="draft"]')).toHaveValue(id!);
  });
});

test("someone else's link to a form with mistakes shows nothing of it, and a post naming it makes a draft of the poster's own", async ({
  page,
  playwright,
  baseURL,
}) => {
  const mallory: APIRequestContext = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": newClient() } });
  const bait = { formName: "contact", name: "Mallory Billing", email: "mallory@evil", service: "seo", message: "Pay invoice 4711 to account 123" };
  const posted = await mallory.post("/?index", { form: bait, maxRedirects: 0 });
  expect(posted.status()).toBe(303);
  const link = posted.headers()["location"]!;
  expect(link).toMatch(/^\/\?contact=[\w-]{22}#contact-error-summary$/);
  expect(await (await mallory.get(link)).text()).toContain(bait.message); // its maker sees it

  await page.goto(link);
  const form = contactForm(page);
  await expect(form.getByLabel("Name")).toHaveValue("");
  await expect(form.getByLabel("Email")).not.toHaveAttribute("aria-invalid");
  const html = await page.content();
  for (const text of [bait.name, bait.email, bait.message, "Please enter a valid email address"]) expect(html).not.toContain(text);
  await expect(form.locator('input[name="draft"]')).toHaveCount(0);

  // The visitor's own mistakes never join the maker's draft, and a post naming it makes a new one.
  const id = /contact=([\w-]{22})/.exec(link)![1]!;
  const other = await page.request.post("/?index", { form: { ...bait, name: "Vusi Visitor-4711", draft: id }, maxRedirects: 0 });
  expect(other.headers()["location"]).not.toContain(id);
  expect(await (await mallory.get(link)).text()).not.toContain("Vusi Visitor-4711");
  await mallory.dispose();
});

test("a valid message is stored, confirmed, and delivered with its own subject", async ({ page, formService }) => {
  await page.goto("/");
  const form = contactForm(page);
  await form.getByLabel("Name").fill(`Lerato Mokoena ${formService.token}`);
  await form.getByLabel("Email").fill("lerato@mokoena.co.za");
  await form.getByLabel("Service").selectOption({ label: "Zoho Solutions" });
  await form.getByLabel("Message").fill("We run Zoho Books and want CRM too.");
  await form.getByRole("button", { name: "Send Message" }).click();
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

test("a sent message's thanks show its reference, the one the agency's message ends with, to this browser only and never from a cache", async ({
  page,
  playwright,
  baseURL,
  formService,
}) => {
  await page.goto("/");
  const form = contactForm(page);
  await fillIn(form, `Lerato Mokoena ${formService.token}`, "Please call us about a booking system.");
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  const reference = (await form.locator(".reference").textContent())!;
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  await expect(form.getByText(`Your reference: ${reference}`)).toBeVisible();
  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
  expect(payload!.message).toMatch(new RegExp(`\nReference: ${reference}$`));

  // The thanks' address names a receipt this browser owns: answered "private, no-store", so no cache keeps it.
  await expect(page).toHaveURL(/\/\?sent=contact&receipt=[\w-]{22}#contact$/);
  const thanks = new URL(page.url());
  const own = await page.request.get(thanks.pathname + thanks.search);
  expect(own.headers()["cache-control"]).toBe("private, no-store");
  expect(await own.text()).toContain(reference);
  // Shared, the address shows nothing of it to another browser.
  const someoneElse = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": newClient() } });
  const shared = await someoneElse.get(thanks.pathname + thanks.search);
  expect(shared.headers()["cache-control"]).toBe("private, no-store");
  const html = await shared.text();
  expect(html).toContain(messages.contactSent);
  expect(html).not.toContain(reference);
  expect(html).not.toContain('class="reference"');
  await someoneElse.dispose();
});

test("a message as long as the box allows, with line breaks, is sent: without JavaScript too, where each break is posted as two characters", async ({
  page,
  formService,
}) => {
  // 50 lines of 100 characters, each break counted as one, as the check counts it (and the browser posts it as two).
  const message = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, "0")} ${"w".repeat(96)}`).join("\n") + "!";
  expect(message).toHaveLength(5000);
  await page.goto("/");
  const form = contactForm(page);
  await fillIn(form, `Lerato Mokoena ${formService.token}`, message);
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const received = ((await formService.received()) as { message: string }[])[0]!.message;
  for (const line of message.split("\n")) expect(received).toContain(line);
});

test("a message that cannot be stored shows the failure text and keeps everything typed", async ({ page }) => {
  await page.goto(`${sites.unwritable.url}/`);
  const form = contactForm(page);
  await fillIn(form, "Lerato Mokoena", "Keep me.");
  await form.getByRole("button", { name: "Send Message" }).click();
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
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  expect(await formService.settled()).toEqual([]);
  // The honeypot is hidden from assistive technology.
  expect(javaScriptEnabled ? await form.getByRole("textbox", { name: /Leave this empty/ }).count() : 0).toBe(0);
});

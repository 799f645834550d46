/** The contact form on the home page, with JavaScript on and off. */
import type { Locator } from "@playwright/test";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { expect, expectBelowHeader, test } from "./support/fixtures";
import { TEST_ACCESS_KEY } from "./support/sites";
import { contactForm, expectValues, fillValues, postsOf } from "./support/wizard";

/** Each required field's message when the form is sent empty. */
const REQ = { Name: /Please enter your name/, Email: /Please enter your email address/, Service: "Please choose a service", Message: /Please enter a message/ };
const typed = { name: "Lerato Mokoena", email: "lerato@", service: "seo", message: "We need help with local search." };

/** The form filled in with `name`, an email (by default a bad one), a service and a message. */
const fillIn = (form: Locator, name: string, { email = typed.email, service = typed.service, message = typed.message } = {}) =>
  fillValues(form, { Name: name, Email: email, Service: service, Message: message });

/** The form as a refused send leaves it: what was typed, and the email's message. */
async function showsTheMistake(form: Locator, name: string) {
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expectValues(form, { Name: name, Email: typed.email, Service: typed.service, Message: typed.message });
}

/**
 * Where each field's label, control and the send button are, relative to the first label: a
 * notice or summary above the fields may move the whole form, never one field against another.
 */
const layout = (form: Locator) =>
  form.locator("form").evaluate((f) => {
    const origin = f.querySelector("label")!.getBoundingClientRect();
    return [...f.querySelectorAll(".field label, .field input, .field select, .field textarea, button[type=submit]")]
      .filter((el) => el.getClientRects().length > 0)
      .map((el) => {
        const box = el.getBoundingClientRect();
        return `${el.tagName.toLowerCase()} ${el.getAttribute("name") ?? el.textContent}: ${Math.round(box.x - origin.x)},${Math.round(box.y - origin.y)} ${Math.round(box.width)}×${Math.round(box.height)}`;
      });
  });

test("at 390 and 1280 px each field's message, summed up; a bad email kept, not sent; no field moves", async ({ page, formService, javaScriptEnabled }) => {
  const posts = postsOf(page).forms;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/#contact");
    const form = contactForm(page);
    const select = form.getByLabel("Service");
    await expect(select).toHaveValue("");
    await expect(select.locator("option")).toHaveText([
      "Choose a service",
      "Low-code development",
      "SEO & Digital Marketing",
      "AI Solutions",
      "Zoho Solutions",
    ]);
    expect(await select.locator("option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(["", "low-code", "seo", "ai", "zoho"]);
    await expect(form.getByRole("link", { name: "How we handle your data" })).toHaveAttribute("href", "/privacy");
    const [empty, sent] = [await layout(form), posts.length];
    await fillIn(form, `${typed.name} ${formService.token}`);
    expect(await layout(form)).toEqual(empty);
    await form.getByRole("button", { name: "Send Message" }).click();
    await showsTheMistake(form, `${typed.name} ${formService.token}`);
    expect(await layout(form)).toEqual(empty);
    // With JavaScript the browser's own checks caught it; without, the server did.
    expect(posts.length - sent).toBe(javaScriptEnabled ? 0 : 1);
    await fillIn(form, "", { email: "", service: "", message: "" });
    await form.getByRole("button", { name: "Send Message" }).click();
    for (const [label, message] of Object.entries(REQ)) {
      await expect(form.getByLabel(label)).toHaveAccessibleDescription(message);
      await expect(form.getByLabel(label)).toHaveAttribute("aria-invalid", "true");
    }
    // Summed up above the form ("There is a problem"), each message a link to its field, where focus goes with JavaScript.
    const summary = form.getByRole("region", { name: "There is a problem" });
    await expect(summary.getByRole("link")).toHaveText(Object.values(REQ));
    const hrefs = Object.keys(REQ).map((label) => `#contact-${label.toLowerCase()}`);
    expect(await summary.getByRole("link").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual(hrefs);
    expect((await summary.boundingBox())!.y + (await summary.boundingBox())!.height).toBeLessThanOrEqual((await form.getByLabel("Name").boundingBox())!.y);
    if (javaScriptEnabled) await expect(form.getByLabel("Name")).toBeFocused();
    await summary.getByRole("link", { name: "Please choose a service" }).click();
    await expectBelowHeader(select);
    await expect(select).toHaveAccessibleDescription("Please choose a service");
    if (javaScriptEnabled) await expect(select).toBeFocused();
    expect(await layout(form)).toEqual(empty);
  }
  expect(await formService.settled()).toEqual([]);
});

test("a form with mistakes is a page of its maker's own: GETs only, gone once sent", { tag: "@without-js" }, async ({ page, stranger, formService }) => {
  const posts = postsOf(page).pages;
  await page.goto("/");
  const form = contactForm(page);
  const name = `${typed.name} ${formService.token}`;
  await fillIn(form, name);
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
  await showsTheMistake(form, name);
  const errorPage = page.url();
  expect((await page.reload())?.request().method()).toBe("GET");
  await showsTheMistake(form, name);
  expect((await page.goBack())?.request().method()).toBe("GET");
  // The page before it (the browser may put back what was typed there, as it does for any form).
  await expect(page).toHaveURL(/\/$/);
  await expect(form.getByLabel("Email")).not.toHaveAttribute("aria-invalid");
  expect((await page.goForward())?.request().method()).toBe("GET");
  await showsTheMistake(form, name);
  expect(posts).toEqual([303]);
  // Someone else with its link sees nothing of it, and a post naming it makes a draft of their own.
  const link = errorPage.replace(/^https?:\/\/[^/]+/, "");
  const read = await (await stranger.get(link)).text();
  for (const text of [name, typed.email, typed.message, "Please enter a valid email address", 'name="draft"']) expect(read).not.toContain(text);
  const id = /contact=([\w-]{22})/.exec(link)![1]!;
  const bait = { formName: "contact", name: "Mallory Billing", email: "mallory@evil", service: "seo", message: "Pay invoice 4711", draft: id };
  expect((await stranger.post("/?index", { form: bait, maxRedirects: 0 })).headers()["location"]).not.toContain(id);
  await page.reload();
  await showsTheMistake(form, name);
  await form.getByLabel("Email").fill("lerato@mokoena.co.za");
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  expect(await formService.settled()).toHaveLength(1);
  // Sent: its page is gone, even for the browser that made it.
  await page.goto(errorPage);
  await expect(form.getByLabel("Name")).toHaveValue("");
  await expect(form.getByLabel("Email")).not.toHaveAttribute("aria-invalid");
});

test("a bot's honeypot sends nothing; a message is stored, thanked and delivered", async ({ page, stranger, formService, javaScriptEnabled }) => {
  await page.goto("/");
  const form = contactForm(page);
  // The honeypot is hidden from assistive technology.
  if (javaScriptEnabled) await expect(form.getByRole("textbox", { name: /Leave this empty/ })).toHaveCount(0);
  await fillIn(form, `Bot ${formService.token}`, { email: "bot@example.com", message: "Buy now" });
  await form.locator('input[name="website"]').fill("http://spam.example", { force: true });
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  expect(await formService.settled()).toEqual([]);

  await page.goto("/");
  const name = `${typed.name} ${formService.token}`;
  await fillIn(form, name, { email: "lerato@mokoena.co.za", service: "zoho", message: "We run Zoho Books and want CRM too." });
  await form.getByRole("button", { name: "Send Message" }).click();
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  if (javaScriptEnabled) {
    // Focus is moved by script: to the thanks, and the next Tab reaches the emptied form.
    await expect(form.getByRole("status")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(form.getByLabel("Name")).toBeFocused();
  }
  await expect(form.getByLabel("Name")).toHaveValue("");
  await expect(form.getByLabel("Service")).toHaveValue("");
  const reference = (await form.locator(".reference").textContent())!;
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  await expect(form.getByText(`Your reference: ${reference}`)).toBeVisible();
  const [payload] = (await formService.settled()) as Record<string, string>[];
  expect(payload).toMatchObject({ access_key: TEST_ACCESS_KEY, to: site.email, from_name: name, subject: `New contact form message from ${name}` });
  for (const part of ["Zoho Solutions", "lerato@mokoena.co.za", "We run Zoho Books and want CRM too."]) expect(payload!.message).toContain(part);
  expect(payload!.message).toMatch(new RegExp(`\nReference: ${reference}$`));

  // The thanks' address names a receipt this browser owns: answered "private, no-store", so no cache keeps it.
  await expect(page).toHaveURL(/\/\?sent=contact&receipt=[\w-]{22}#contact$/);
  const thanks = new URL(page.url());
  const own = await page.request.get(thanks.pathname + thanks.search);
  expect(own.headers()["cache-control"]).toBe("private, no-store");
  expect(await own.text()).toContain(reference);
  // Shared, the address shows nothing of it to another browser.
  const shared = await stranger.get(thanks.pathname + thanks.search);
  expect(shared.headers()["cache-control"]).toBe("private, no-store");
  const html = await shared.text();
  expect(html).toContain(messages.contactSent);
  expect(html).not.toContain(reference);
  expect(html).not.toContain('class="reference"');
});

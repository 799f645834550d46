/**
 * Every lead carries its visit's source to where the agency works (decision 0042), taken from
 * real browsers against the built server: the calculator without JavaScript (its landing from the
 * first post's Referer), with JavaScript and a reload mid-wizard (from the tab's session storage),
 * the contact form without JavaScript through a page of mistakes, with JavaScript from a referring
 * site, and a campaign value that could name someone. The webhook's JSON is where it shows whole:
 * its parts, and the message's line in words that every provider sends (how each provider puts it:
 * server/leads/transport.test.ts; Zoho CRM's fields: zoho-crm.test.ts and zoho-crm.spec). And a
 * company of 120 characters and an email of 254, which the site takes. opsPort 136.
 */
import { expect, test, type Browser } from "@playwright/test";
import { messages } from "../../app/content/messages";
import type { FakeFormService } from "../support/fake-form-service";
import { hydrated } from "../support/fixtures";
import { dataDir, keyed } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { calculator, dispatchApp, progress } from "../support/wizard";

const { fakeService, site } = startedByEachTest();
const SPRING = "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring";
/** The longest company name and email address the site takes (app/forms/limits.ts). */
const company120 = (token: string) => `Gauteng Freight ${token} `.padEnd(120, "C");
const email254 = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(53)}.example`;

let clients = 0;
/** A browser of a client of its own (the server trusts X-Forwarded-For here): each its own share of leads. */
async function visitor(browser: Browser, javaScriptEnabled: boolean, path: string, referer?: string) {
  const context = await browser.newContext({ javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": `203.0.113.${++clients}` } });
  const page = await context.newPage();
  await page.goto(path, { referer });
  if (javaScriptEnabled) await hydrated(page);
  return { context, page };
}

/**
 * The calculator from the campaign's page: without JavaScript a post a step, with a 120-character
 * company and a 254-character email; with it, reloaded at step 3 (its own address, the campaign's
 * values gone from it), so the landing comes from the tab's session storage.
 */
async function calculatorVisit(browser: Browser, url: string, token: string, js: boolean) {
  const { context, page } = await visitor(browser, js, `${url}${SPRING}`);
  const calc = calculator(page);
  for (const choice of [dispatchApp.service, dispatchApp.timeframe]) await calc.getByRole("button", { name: choice, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 3 of 5");
  if (js) {
    await page.reload();
    await hydrated(page);
    await expect(progress(page)).toHaveText("Step 3 of 5");
    expect(page.url()).not.toContain("utm_");
  }
  await calc.getByRole("button", { name: dispatchApp.complexity, exact: true }).click();
  await calc.getByLabel("Project description").fill(dispatchApp.description);
  await calc.getByRole("button", { name: "Continue" }).click();
  await calc.getByLabel("Company name").fill(js ? `Gauteng Freight ${token}` : company120(token));
  await calc.getByLabel("Email").fill(js ? "thandi@freight.example" : email254);
  await calc.getByLabel("Phone").fill("+27 11 555 0100");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await (js ? expect(calc.getByRole("status")).toHaveText(messages.calculatorSent) : expect(page).toHaveURL(/\?sent=calculator/));
  await context.close();
}

/** The contact form: with JavaScript straight away; without it, first with a mistake (a page of its own), then put right. */
async function contactVisit(browser: Browser, url: string, token: string, js: boolean, path: string, referer?: string) {
  const { context, page } = await visitor(browser, js, `${url}${path}`, referer);
  const form = page.locator("#contact");
  await form.getByLabel("Name").fill(`Lerato Mokoena ${token}`);
  await form.getByLabel("Email").fill(js ? "lerato@mokoena.co.za" : "lerato@");
  await form.getByLabel("Service").selectOption({ label: "Zoho Solutions" });
  await form.getByLabel("Message").fill("We run Zoho Books and want CRM too.");
  await form.getByRole("button", { name: "Send Message" }).click();
  if (!js) {
    await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
    await form.getByLabel("Email").fill("lerato@mokoena.co.za");
    await form.getByRole("button", { name: "Send Message" }).click();
  }
  await expect(form.getByRole("status")).toHaveText(messages.contactSent);
  await context.close();
}

/** The one submission marked `token` the fake service took, waited for. */
async function arrived(fake: FakeFormService, token: string) {
  await expect.poll(() => fake.accepted(token).length, { timeout: 30_000, message: `${token} delivered` }).toBe(1);
  return fake.accepted(token)[0] as Record<string, unknown>;
}

const line = (words: string) => new RegExp(`\\n\\n${words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n\\nReference: \\d{8}-\\w{8}$`);

test("the webhook's JSON carries each visit's source as parts, and its message the line in words, before the reference; a referring site the operator lists by its host; a value that may name someone never passed on", async ({
  browser,
}) => {
  // Five visits in real browsers, two walking the calculator: 9-10 s alone here; room for a machine four times slower and busy.
  test.setTimeout(120_000);
  const fake = await fakeService();
  const settings = { CAMPAIGNS: "spring", TRUST_PROXY: "1", FORM_PROVIDER: "webhook", REFERRER_SITES: "example.co.za" };
  const server = site(opsPort(136), keyed(fake, dataDir(), settings));
  await server.listening;
  // The five visits, one after another (a busy machine), each marked with a token of its own.
  const t = { calcNoJs: "src-calc-nojs", calcJs: "src-calc-js", contactNoJs: "src-contact-nojs", contactLink: "src-contact-link", contactOther: "src-other" };
  await calculatorVisit(browser, server.url, t.calcNoJs, false);
  await calculatorVisit(browser, server.url, t.calcJs, true);
  await contactVisit(browser, server.url, t.contactNoJs, false, SPRING);
  await contactVisit(browser, server.url, t.contactLink, true, "/", "https://example.co.za/blog");
  await contactVisit(browser, server.url, t.contactOther, true, "/?utm_source=newsletter&utm_medium=email&utm_campaign=jane@x.co");
  const spring = { kind: "campaign", utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring", referrer: "", text: "newsletter, email, spring" };
  for (const token of [t.calcNoJs, t.calcJs, t.contactNoJs]) {
    const payload = await arrived(fake, token);
    expect(payload.source, token).toEqual(spring);
    expect(payload.message, token).toMatch(line("Came from: newsletter, email, spring"));
  }
  // The whole company and address, as typed: a form service takes them as they are.
  const calc = (await arrived(fake, t.calcNoJs)).message;
  expect(calc).toContain(`Company: ${company120(t.calcNoJs)}\n`);
  expect(calc).toContain(`Email: ${email254}\n`);
  const listed = await arrived(fake, t.contactLink);
  expect(listed.source).toEqual({ kind: "site", utm_source: "", utm_medium: "", utm_campaign: "", referrer: "example.co.za", text: "a link on example.co.za" });
  expect(listed.message).toMatch(line("Came from: a link on example.co.za"));
  const other = await arrived(fake, t.contactOther);
  expect(other.source).toMatchObject({ kind: "other", utm_source: "", utm_campaign: "" });
  expect(other.message).toMatch(line("Came from: a campaign or link the site does not name"));
  expect(JSON.stringify(fake.received()), "a value that may name someone is never passed on").not.toContain("jane@x.co");
});

/** A send that fails or goes unanswered, with JavaScript (decisions 0028, 0038): both forms keep all, say so, and a second send makes one lead. */
import type { Page, Route } from "@playwright/test";
import { messages } from "../app/content/messages";
import { SEND_DEADLINE_MS } from "../app/forms/failed-send";
import { expect, forTheEye, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, expectValues, fillValues, progress } from "./support/wizard";

// The specification's words for the calculator (the contact form has its own: messages.contactFailed).
const FAILED = "There was an error submitting your request. Please try again.";
const ERROR_PAGE = "Sorry, this page didn’t load";
/** The server's own limit for a request to arrive whole (`requestTimeout` in server/index.ts). */
const REQUEST_TIMEOUT_MS = 20_000;

/** The home page's form posts (`/?index`, with JavaScript `…&_data=routes/_index`). */
const isSend = (url: URL) => url.pathname === "/" && url.searchParams.has("index");

/** Console errors the page logs, so a test can see a failed send was logged. */
function consoleErrors(page: Page) {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  return errors;
}

/** Step 5 with its details typed in (the company carries the test's token), and the checks of what a failed send leaves and of the thanks. */
async function filledStep5(page: Page, token: string) {
  await atStep5(page, dispatchApp);
  const calc = calculator(page);
  const details = {
    "Your name (optional)": "Thandi Nkosi",
    "Company name": `Gauteng Freight ${token}`,
    Email: "ops@gautengfreight.co.za",
    Phone: "+27 11 555 0101",
  };
  await fillValues(calc, details);
  const send = () => calc.getByRole("button", { name: "Send My Request" }).click();
  /** Step 5, every value, the failure text, no error page. */
  const kept = async () => {
    await expect(calc.getByRole("alert")).toHaveText(FAILED);
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expectValues(calc, details);
    await expect(calc.locator(".summary-value")).toHaveText(["Software Development", "Urgent (1-2 weeks)", "Complex", dispatchApp.description]);
    await expect(calc.getByRole("button", { name: "Send My Request" })).toBeEnabled();
    await expect(page.getByText(ERROR_PAGE)).toHaveCount(0);
  };
  /** The thanks, and its reference. */
  const thanked = async () => {
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    return (await calc.locator(".reference").textContent())!;
  };
  return { calc, details, send, kept, thanked };
}

/** The home page's contact form (opened unless `open` is false) with a message typed in (the name carries the test's token). */
async function typedContact(page: Page, token: string, { open = true } = {}) {
  if (open) await page.goto("/");
  const form = page.locator("form.contact-form");
  const typed = { Name: `Lerato Mokoena ${token}`, Email: "lerato@example.co.za", Message: "A booking system for 3 salons", Service: "ai" };
  await fillValues(form, typed);
  const stillTyped = () => expectValues(form, typed);
  return { form, typed, stillTyped, send: () => form.getByRole("button", { name: "Send Message" }).click() };
}

/** The reference in a lead's message. */
const referenceOf = (lead: unknown) => /Reference: (\S+)/.exec((lead as { message: string }).message)?.[1];

/** Every way the visitor's own request can fail before it reaches the site's action. */
const failures: [name: string, fail: (route: Route) => Promise<void>][] = [
  ["the connection is reset", (route) => route.abort("connectionreset")],
  ["the request times out", (route) => route.abort("timedout")],
  ["the server is not there (restarting)", (route) => route.abort("connectionrefused")],
  ["a proxy answers 502", (route) => route.fulfill({ status: 502, contentType: "text/html", body: "<h1>502 Bad Gateway</h1>" })],
  ["the server answers 500", (route) => route.fulfill({ status: 500, contentType: "text/plain", body: "Internal Server Error" })],
  // Not the site's answer, though a 200: a Wi-Fi login page, a proxy's page (found by an outsider's attack).
  ["a Wi-Fi login page answers 200", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<h1>Please sign in to the Wi-Fi</h1>" })],
  ["something answers 200 with JSON that is not the site's", (route) => route.fulfill({ status: 200, contentType: "application/json", body: "{}" })],
  // The server takes the request, and the reply never reaches the browser.
  ["the reply is lost", async (route) => (await route.fetch(), route.abort("connectionreset"))],
];

test.describe("a failed send", { tag: "@needs-js" }, () => {
  test("every kind of failed send, offline too, keeps step 5 and says so; one lead goes after", async ({ page, context, formService }) => {
    const logged = consoleErrors(page);
    const { calc, details, send, kept, thanked } = await filledStep5(page, formService.token);
    let fail: ((route: Route) => Promise<void>) | undefined;
    await page.route(isSend, (route) => (fail && route.request().method() === "POST" ? fail(route) : route.fallback()));
    for (const [name, how] of failures) {
      fail = how;
      const errors = logged.length;
      await send();
      // This failure's own error, logged: the failure text below is then this send's, not the last one's.
      await expect.poll(() => logged.length, `when ${name}`).toBeGreaterThan(errors);
      await kept();
    }
    await forTheEye(page, "step-5-failed-send");
    fail = undefined;
    // Only the last request reached the server: its lead.
    expect(await formService.settled()).toHaveLength(1);
    await page.reload();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expectValues(calc, details);
    // Offline at Send: the page sends by itself once the browser is online, once.
    const posts: string[] = [];
    page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
    await context.setOffline(true);
    const errors = logged.length;
    await send();
    await kept();
    expect(logged.slice(errors).join("\n")).toMatch(/fetch|network|internet/i);
    expect(posts).toHaveLength(1);
    await context.setOffline(false);
    const reference = await thanked();
    // Offline and online again after the thanks: nothing more is sent.
    await context.setOffline(true);
    await context.setOffline(false);
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    expect(posts).toHaveLength(2);
    const leads = await formService.settled();
    expect(leads).toHaveLength(1);
    expect(referenceOf(leads[0])).toBe(reference);
  });

  test("the contact form keeps what was typed through a reload, Back and failed sends; one message", async ({ page, formService }) => {
    const { form, typed, stillTyped, send } = await typedContact(page, formService.token);
    await page.reload();
    await stillTyped();
    await page.getByRole("link", { name: "About", exact: true }).first().click();
    await expect(page).toHaveURL(/\/about$/);
    await page.goBack();
    await stillTyped();
    // The first send dropped before the server; a reply lost after it is the no-answer test's, below.
    let dropped = false;
    await page.route(isSend, async (route) => {
      if (route.request().method() !== "POST" || dropped) return route.fallback();
      dropped = true;
      await route.abort("connectionreset");
    });
    await send();
    await expect(form.getByRole("alert")).toHaveText(messages.contactFailed);
    await stillTyped();
    await expect(page.getByText(ERROR_PAGE)).toHaveCount(0);
    // Sent again: the thanks, one message; the form forgets what was typed.
    await send();
    await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    expect(await formService.settled()).toHaveLength(1);
    const emptied = Object.fromEntries(Object.keys(typed).map((label) => [label, ""]));
    await expectValues(form, emptied);
    await page.goto("/");
    await expectValues(form, emptied);
  });
});

/** Holds the page's next send until `release()`, or if `lost` passes it on and keeps the answer; `held`: the send is held, or answered. */
async function holdNextSend(page: Page, { lost = false } = {}) {
  await page.unrouteAll();
  let [arrived, release] = [() => {}, () => {}];
  const held = new Promise<void>((resolve) => (arrived = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  await page.route(isSend, async (route) => {
    if (!first || route.request().method() !== "POST") return route.fallback();
    first = false;
    if (lost) return void (await route.fetch(), arrived());
    arrived();
    await released;
    await route.fallback();
  });
  return { held, release };
}

// The deadline is a timer in the page: `page.clock` passes it at once. At 390 px, where a send was seen to hang.
test.describe("a send with no answer", { tag: "@needs-js" }, () => {
  test.use({ viewport: { width: 390, height: 844 } });

  // A lost answer is the harder case than a send held before the server: the lead exists.
  test("a send whose answer never comes: past the deadline both forms keep all and say so; a late answer is heard; one lead each", async ({
    page,
    formService,
  }) => {
    await page.clock.install();
    const logged = consoleErrors(page);
    const { calc, send, kept, thanked } = await filledStep5(page, formService.token);
    let { held } = await holdNextSend(page, { lost: true });
    await send();
    await held;
    await expect(calc.getByRole("button", { name: "Sending…" })).toBeDisabled();
    await page.clock.fastForward(SEND_DEADLINE_MS + 1_000);
    await kept();
    expect(logged.join("\n")).toContain("timeout");
    const first = await formService.settled();
    expect(first).toHaveLength(1);
    // Sent again, answered past the server's request timeout within the deadline: thanked, still one lead.
    const late = await holdNextSend(page);
    await send();
    await late.held;
    await page.clock.fastForward(REQUEST_TIMEOUT_MS + 1_000);
    late.release();
    const reference = await thanked();
    await expect(calc.getByRole("alert")).toHaveText("");
    expect(await formService.settled()).toEqual(first);
    expect(referenceOf(first[0])).toBe(reference);

    const contact = await typedContact(page, formService.token, { open: false });
    ({ held } = await holdNextSend(page, { lost: true }));
    await contact.send();
    await held;
    await expect(contact.form.getByRole("button", { name: "Sending…" })).toBeDisabled();
    await page.clock.fastForward(SEND_DEADLINE_MS + 1_000);
    await expect(contact.form.getByRole("alert")).toHaveText(messages.contactFailed);
    await contact.stillTyped();
    await expect(contact.form.getByRole("button", { name: "Send Message" })).toBeEnabled();
    const firstMessage = await formService.settled();
    expect(firstMessage).toHaveLength(2);
    await contact.send();
    await expect(contact.form.getByRole("status")).toHaveText(messages.contactSent);
    expect(await formService.settled()).toEqual(firstMessage);
  });
});

/** A calculator draft or a receipt opens only in the browser it was made for, whoever has the link; the thanks show no other reference. */
import type { Page } from "@playwright/test";
import { calculatorText, expiredNote } from "../app/content/calculator";
import { estimateText } from "../app/content/estimate";
import { messages } from "../app/content/messages";
import { expect, newClient, test } from "./support/fixtures";
import { atStep5, calculator, dispatchApp, fillDetails, progress, sendRequest } from "./support/wizard";

const MALLORY = "mallory@evil.example";
const ESTIMATE = "/estimate?service=softwareDev&timeframe=urgent&complexity=complex";

const showsNothingOf = async (page: Page, ...texts: string[]) => {
  const html = await page.content();
  for (const text of texts) expect(html).not.toContain(text);
};

test.describe("without JavaScript, a visitor's draft", { tag: "@without-js" }, () => {
  test("cannot be read or changed by someone who has its link, and is gone once the request is sent", async ({ page, stranger: mallory, formService }) => {
    await atStep5(page, { service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "Our secret merger plan" });
    const calc = calculator(page);
    await fillDetails(page, { company: `Victim Co ${formService.token}`, email: "victim@victim.example", phone: "x" });
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByLabel("Phone")).toHaveAttribute("aria-invalid", "true");
    const mine = page.url().replace(/^https?:\/\/[^/]+/, "");
    expect(mine).toMatch(/\?draft=[\w-]{22}&step=5#calc-error-summary$/);
    const id = /draft=([\w-]{22})/.exec(mine)![1]!;

    // The link alone opens nothing…
    const read = await (await mallory.get(mine)).text();
    for (const secret of ["Our secret merger plan", "victim@victim.example", "Victim Co"]) expect(read).not.toContain(secret);
    expect(read).toContain(expiredNote);
    expect(read).not.toMatch(/name="draft"/);
    // …and a post naming the visitor's draft makes one of the maker's own, never the visitor's.
    const form = { formName: "calculator", draft: id, "state.step": "5", "state.service": "seo", "state.timeframe": "urgent", "state.description": "x" };
    const posted = await mallory.post("/?index", { form: { ...form, email: MALLORY, intent: "send" }, maxRedirects: 0 });
    expect(posted.headers()["location"]).not.toContain(id);
    await page.reload();
    await expect(calc.getByLabel("Email")).toHaveValue("victim@victim.example");
    await showsNothingOf(page, MALLORY);

    await calc.getByLabel("Phone").fill("011 555 0100");
    await sendRequest(page);
    expect(await formService.settled()).toHaveLength(1);
    // Sent: the draft is deleted, so even its own browser finds nothing there any more.
    await page.goto(mine);
    await expect(calc.getByText(expiredNote)).toBeVisible();
    await showsNothingOf(page, "Our secret merger plan", "victim@victim.example");
  });
});

test("an unknown step page starts over with a note; the thanks show only this browser's reference", async ({ page, stranger: mallory, formService }) => {
  await page.goto(`/?draft=${"x".repeat(22)}#wizard`);
  const calc = calculator(page);
  await expect(calc.getByText(expiredNote)).toBeVisible();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await calc.getByRole("button", { name: "Zoho Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await expect(calc.getByText(expiredNote)).toHaveCount(0);
  // A reference-shaped text in the address is never shown.
  await page.goto("/?sent=calculator&ref=PAY-DEPOSIT-TO-ACCT-4711&reference=PAY-4711#wizard");
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  await expect(calc.locator(".reference")).toHaveCount(0);
  await showsNothingOf(page, "PAY-DEPOSIT", "PAY-4711");

  // Someone else's real receipt shows nothing here either.
  const state = { "state.step": "5", "state.service": "seo", "state.timeframe": "urgent", "state.complexity": "simple", "state.description": "x" };
  const form = { formName: "calculator", ...state, companyName: `Mallory ${formService.token}`, email: MALLORY, phone: "011 555 0100", intent: "send" };
  const sent = await mallory.post("/?index", { form, maxRedirects: 0 });
  const thanks = sent.headers()["location"]!;
  expect(thanks).toMatch(/^\/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  const reference = /class="reference">([^<]+)</.exec(await (await mallory.get(thanks)).text())?.[1];
  expect(reference).toMatch(/^\d{8}-[0-9A-Z]{8}$/);
  await page.goto(thanks);
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  await expect(calc.locator(".reference")).toHaveCount(0);
  await showsNothingOf(page, reference!);
  // Its data request too: nothing of hers, and private all the same (the address names a record).
  const data = await page.request.get(`${thanks.split("#")[0]}&_data=routes%2F_index`);
  expect(data.headers()["cache-control"]).toBe("private, no-store");
  // What happens next is no one's own: the thanks say it whatever the receipt.
  expect(((await data.json()) as { receipt: unknown }).receipt).toEqual({ next: expect.stringContaining("within one business day") });
  await formService.settled();
});

test("after a send, the estimate's page says so in the sending browser, and still offers the request in another", async ({
  page,
  browser,
  baseURL,
  javaScriptEnabled,
  formService,
}) => {
  await atStep5(page, dispatchApp);
  await fillDetails(page, { company: `One Request Co ${formService.token}`, email: "ops@one.example", phone: "011 555 0100" });
  const reference = await sendRequest(page);
  // The thanks link to this browser's own page of the request: the estimate's, with the receipt, never kept by a cache.
  const link = calculator(page).locator(".wizard-sent").getByRole("link", { name: calculatorText.keepLink });
  const own = (await link.getAttribute("href"))!;
  expect(own).toMatch(new RegExp(`^${ESTIMATE.replaceAll("?", "\\?")}&receipt=[\\w-]{22}$`));
  expect((await page.request.get(own)).headers()["cache-control"]).toBe("private, no-store");
  const sent = page.locator(".estimate-sent");
  const start = page.getByRole("button", { name: estimateText.start });
  await link.click();
  await expect(sent).toHaveText(estimateText.sent(reference));
  await expect(start).toHaveCount(0);
  // The public page, the same bytes for everyone: with JavaScript, this tab's record says it was sent once hydrated.
  await page.goto(ESTIMATE);
  if (javaScriptEnabled) {
    await expect(sent).toHaveText(estimateText.sent(reference));
    await expect(start).toHaveCount(0);
  } else await expect(start).toBeVisible();

  // Another browser, even with the receipt's link: the public page, nothing of the request.
  const other = await browser.newContext({ baseURL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": newClient() } });
  const elsewhere = await other.newPage();
  for (const path of [ESTIMATE, own]) {
    await elsewhere.goto(path);
    await expect(elsewhere.getByRole("button", { name: estimateText.start })).toBeVisible();
    expect(await elsewhere.content()).not.toContain(reference);
  }
  await other.close();
});

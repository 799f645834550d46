/**
 * What the server keeps for a visitor is theirs alone: a calculator draft (the steps without
 * JavaScript) or a receipt (the reference after a send) opens only in the browser it was made
 * for, whoever made the link; and the thanks show no reference the server did not issue there.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { expect, newClient, test } from "./support/fixtures";
import { atStep5, calculator, progress } from "./support/wizard";

const bait = { company: "Mallory Holdings", email: "mallory@evil.example", description: "Mallory's bait project" };

/** Someone else's client: its own address and its own cookies. */
const stranger = (playwright: { request: { newContext(o: object): Promise<APIRequestContext> } }, baseURL: string | undefined) =>
  playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": newClient() } });

/** Step 5 sent by Mallory's own client, without JavaScript, with her details. */
const sendAsMallory = (mallory: APIRequestContext, details: { description: string; companyName: string; phone: string }) =>
  mallory.post("/?index", {
    form: {
      formName: "calculator",
      "state.step": "5",
      "state.service": "seo",
      "state.timeframe": "urgent",
      "state.complexity": "simple",
      "state.description": details.description,
      companyName: details.companyName,
      email: bait.email,
      phone: details.phone,
      intent: "send",
    },
    maxRedirects: 0,
  });

/** Mallory's own draft at step 5, her details in it (the phone left out, so it comes back with errors). */
async function baitLink(mallory: APIRequestContext): Promise<string> {
  const posted = await sendAsMallory(mallory, { description: bait.description, companyName: bait.company, phone: "" });
  expect(posted.status()).toBe(303);
  const location = posted.headers()["location"]!;
  expect(location).toMatch(/^\/\?draft=[\w-]{22}&step=5#calc-error-summary$/);
  // Her own browser sees her draft: the link works for its maker.
  expect(await (await mallory.get(location)).text()).toContain(bait.email);
  return location;
}

const showsNothingOf = async (page: Page, ...texts: string[]) => {
  const html = await page.content();
  for (const text of texts) expect(html).not.toContain(text);
};

test("a step link made by someone else shows the visitor none of its answers, and the visitor's steps never join it", async ({ page, playwright, baseURL }) => {
  const mallory = await stranger(playwright, baseURL);
  const link = await baitLink(mallory);
  await page.goto(link);
  const calc = calculator(page);
  await expect(calc.getByText(calculatorText.expired)).toBeVisible();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await showsNothingOf(page, bait.email, bait.company, bait.description);
  await expect(calc.locator('input[name="draft"]')).toHaveCount(0);

  // Whatever the visitor then does, the maker's link still shows only the maker's own answers.
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  const theirs = await (await mallory.get(link)).text();
  expect(theirs).toMatch(/name="state.service" value="seo"/);
  expect(theirs).toContain(bait.email);
  await mallory.dispose();
});

test.describe("without JavaScript, a visitor's draft", { tag: "@without-js" }, () => {
  test("cannot be read or changed by someone who has its link, and is gone once the request is sent", async ({ page, playwright, baseURL, formService }) => {
    const mallory = await stranger(playwright, baseURL);
    await atStep5(page, { service: "Software Development", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "Our secret merger plan" });
    const calc = calculator(page);
    await calc.getByLabel("Company name").fill(`Victim Co ${formService.token}`);
    await calc.getByLabel("Email").fill("victim@victim.example");
    await calc.getByLabel("Phone").fill("x");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByLabel("Phone")).toHaveAttribute("aria-invalid", "true");
    const mine = page.url().replace(/^https?:\/\/[^/]+/, "");
    expect(mine).toMatch(/\?draft=[\w-]{22}&step=5#calc-error-summary$/);
    const id = /draft=([\w-]{22})/.exec(mine)![1]!;

    // The link alone opens nothing…
    const read = await (await mallory.get(mine)).text();
    for (const secret of ["Our secret merger plan", "victim@victim.example", "Victim Co"]) expect(read).not.toContain(secret);
    expect(read).toContain(calculatorText.expired);
    // …and a post naming the visitor's draft makes one of the maker's own, never the visitor's.
    const posted = await mallory.post("/?index", {
      form: {
        formName: "calculator",
        draft: id,
        "state.step": "5",
        "state.service": "seo",
        "state.timeframe": "urgent",
        "state.description": "x",
        email: bait.email,
        intent: "send",
      },
      maxRedirects: 0,
    });
    expect(posted.headers()["location"]).not.toContain(id);
    await page.reload();
    await expect(calc.getByLabel("Email")).toHaveValue("victim@victim.example");
    await showsNothingOf(page, bait.email);

    await calc.getByLabel("Phone").fill("011 555 0100");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    expect(await formService.settled()).toHaveLength(1);
    // Sent: the draft is deleted, so even its own browser finds nothing there any more.
    await page.goto(mine);
    await expect(calc.getByText(calculatorText.expired)).toBeVisible();
    await showsNothingOf(page, "Our secret merger plan", "victim@victim.example");
    await mallory.dispose();
  });
});

test("the thanks show only a reference the server issued to this browser", async ({ page, playwright, baseURL, formService }) => {
  // A reference-shaped text in the address is never shown.
  await page.goto("/?sent=calculator&ref=PAY-DEPOSIT-TO-ACCT-4711&reference=PAY-4711#wizard");
  const calc = calculator(page);
  await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
  await expect(calc.locator(".reference")).toHaveCount(0);
  await showsNothingOf(page, "PAY-DEPOSIT", "PAY-4711");

  // Someone else's real receipt shows nothing here either.
  const mallory = await stranger(playwright, baseURL);
  const sent = await sendAsMallory(mallory, { description: "x", companyName: `Mallory ${formService.token}`, phone: "011 555 0100" });
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
  expect(((await data.json()) as { receipt: unknown }).receipt).toBeNull();
  await formService.settled();
  await mallory.dispose();
});

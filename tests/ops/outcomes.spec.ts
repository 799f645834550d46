/**
 * What became of the leads (decision 0053): leads sent from real visits, with JavaScript and without, marked won or
 * lost by their reference and corrected, summed by `funnel --json`, `--csv` and the link's page (JavaScript on and off)
 * under their day, source and device; an unknown or
 * erased reference refused; with Zoho CRM, a lead converted there read back as won, and `won` refused. opsPort 190-191.
 */
import { expect, test, type Browser } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { type FakeZohoCrm, startFakeZohoCrm, zohoEnv } from "../support/fake-zoho-crm";
import { dataDir, leadsCommand } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { calculator, dispatchApp, progress } from "../support/wizard";

const { site, undo } = startedByEachTest();
const SPRING = "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring";
const JHB = "/?utm_source=google&utm_medium=cpc&utm_campaign=jhb-search";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";

/** A visit landing on `landing` that sends the calculator or a contact message; the reference its thanks show. */
async function sent(
  browser: Browser,
  url: string,
  { js, landing, to, userAgent }: { js: boolean; landing: string; to: "send" | "contact"; userAgent?: string },
) {
  const context = await browser.newContext({ javaScriptEnabled: js, ...(userAgent ? { userAgent } : {}) });
  try {
    const page = await context.newPage();
    await page.goto(`${url}${landing}`);
    if (js) await page.waitForFunction(() => sessionStorage.getItem("visit-landing") !== null);
    if (to === "contact") {
      const form = page.locator("#contact");
      await form.getByLabel("Name").fill("Lerato Mokoena");
      await form.getByLabel("Email").fill("lerato@mokoena.co.za");
      await form.getByLabel("Service").selectOption("seo");
      await form.getByLabel("Message").fill("A new website, please.");
      await form.getByRole("button", { name: "Send Message" }).click();
      await expect(form.getByRole("status")).toHaveText(messages.contactSent);
      return (await form.locator(".reference").textContent())!;
    }
    const calc = calculator(page);
    for (const choice of [dispatchApp.service, dispatchApp.timeframe, dispatchApp.complexity])
      await calc.getByRole("button", { name: choice, exact: true }).click();
    await calc.getByLabel("Project description").fill(dispatchApp.description);
    await calc.getByRole("button", { name: "Continue" }).click();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await calc.getByLabel("Company name").fill("Gauteng Freight");
    await calc.getByLabel("Email").fill("thandi@freight.example");
    await calc.getByLabel("Phone").fill("+27 11 555 0100");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    return (await calc.locator(".reference").textContent())!;
  } finally {
    await context.close();
  }
}

type Day = { date: string; won: number; value: number; byDevice: Record<string, { won: number }>; bySource: Record<string, { won: number; value: number }> };
/** Today's clients won and their value, by source and device, as `funnel --json` gives them. */
async function wonToday(leads: ReturnType<typeof leadsCommand>) {
  const { days, sources } = JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout) as {
    days: Day[];
    sources: { key: string; won: number; value: number }[];
  };
  const [day] = days;
  const bySource = Object.fromEntries(Object.entries(day!.bySource).map(([key, s]) => [key, [s.won, s.value]]));
  const worth = Object.fromEntries(sources.map((s) => [s.key, [s.won, s.value]]));
  return { won: day!.won, value: day!.value, phone: day!.byDevice.phone!.won, bySource, worth };
}
/** A command that failed: its exit code and what it said. */
const refused = (run: Promise<unknown>) =>
  run.then(
    () => "succeeded",
    (error: { code: number; stderr: string }) => [error.code, error.stderr.trim()],
  );

test("won and lost by reference, run again to correct, in funnel --json, --csv and the link's page under the lead's source, day and device; an unknown or erased reference refused", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const dir = dataDir();
  const server = site(opsPort(190), { DATA_DIR: dir, CAMPAIGNS: "spring,jhb-search" });
  const leads = leadsCommand(dir);
  await server.listening;
  const spring = await sent(browser, server.url, { js: true, landing: SPRING, to: "send" });
  const jhb = await sent(browser, server.url, { js: false, landing: JHB, to: "contact", userAgent: IPHONE });
  expect([spring, jhb]).toEqual([expect.stringMatching(/^\d{8}-\w{8}$/), expect.stringMatching(/^\d{8}-\w{8}$/)]);

  expect((await leads("won", spring, "--value", "85000")).stdout).toMatch(/: won, R 85\s000; the funnel counts it on the day the lead was sent\n$/);
  await leads("lost", jhb);
  expect(await wonToday(leads)).toMatchObject({
    won: 1,
    value: 85_000,
    phone: 0,
    bySource: { "newsletter/email/spring": [1, 85_000], "google/cpc/jhb-search": [0, 0] },
    worth: { "newsletter/email/spring": [1, 85_000], "google/cpc/jhb-search": [0, 0] },
  });
  // Corrected: the spring lead lost after all, the other won for R 120 000.
  await leads("lost", spring);
  await leads("won", jhb, "--value", "R 120 000");
  expect(await wonToday(leads)).toMatchObject({
    won: 1,
    value: 120_000,
    phone: 1,
    bySource: { "newsletter/email/spring": [0, 0], "google/cpc/jhb-search": [1, 120_000] },
  });
  // The same in the CSV a spreadsheet opens (a row a day, source and device: summed here) and on marketing's page.
  const csv = (await leads("funnel", "--csv", "--days", "1")).stdout.trimEnd().split("\r\n");
  expect(csv[0]).toBe("day,source,source name,device,landed,step 2,step 3,step 4,step 5,sent,contact,won,value (rand)");
  const wonIn = (key: string) =>
    csv
      .filter((row) => row.split(",")[1] === key)
      .map((row) => row.split(",").slice(-2).map(Number))
      .reduce(([won, value], [w, v]) => [won! + w!, value! + v!], [0, 0]);
  expect([wonIn("newsletter/email/spring"), wonIn("google/cpc/jhb-search")]).toEqual([
    [0, 0],
    [1, 120_000],
  ]);
  const link = new URL((await leads("funnel-link")).stdout.trim());
  for (const js of [true, false]) {
    const context = await browser.newContext({ javaScriptEnabled: js });
    const page = await context.newPage();
    await page.goto(`${server.url}${link.pathname}`);
    const row = (name: string) =>
      page
        .locator("table.sources")
        .first()
        .locator("tr")
        .filter({ has: page.getByRole("rowheader", { name, exact: true }) });
    // Its last cells: Contact, Won, Value (R).
    await expect(row("google · cpc · jhb-search").locator("td").nth(-2)).toHaveText("1");
    await expect(row("google · cpc · jhb-search").locator("td").last()).toHaveText("120,000");
    await expect(row("newsletter · email · spring").locator("td").nth(-2)).toHaveText("0");
    await context.close();
  }
  expect(await refused(leads("won", "20200101-AAAAAAAA"))).toEqual([1, "leads: 20200101-AAAAAAAA is not known, or was erased; nothing was marked"]);
  expect(await refused(leads("won", jhb, "--value", "120k"))).toEqual([2, expect.stringMatching(/^leads: --value must be whole rand/)]);

  // The person asks to be erased: the count stays, the reference can no longer be marked.
  await leads("erase", jhb, "--yes");
  expect(await refused(leads("lost", jhb))).toEqual([1, `leads: ${jhb} is not known, or was erased; nothing was marked`]);
  expect((await wonToday(leads)).bySource["google/cpc/jhb-search"]).toEqual([1, 120_000]);
});

test("with Zoho CRM, a lead converted there is read back as won by the command; won refuses: the CRM is the one source of truth", async ({ browser }) => {
  test.setTimeout(120_000);
  const zoho: FakeZohoCrm = await startFakeZohoCrm();
  undo(() => zoho.close());
  const env = zohoEnv(zoho, dataDir(), { CAMPAIGNS: "spring" });
  const server = site(opsPort(191), env);
  const leads = leadsCommand(env.DATA_DIR, env);
  await server.listening;
  const reference = await sent(browser, server.url, { js: false, landing: SPRING, to: "contact" });
  const inZoho = () => zoho.records().filter((r) => r.fields.Website_Reference === reference).length;
  await expect.poll(inZoho, { timeout: 30_000, message: "delivered to Zoho CRM" }).toBe(1);
  // Delivered is written just after Zoho answers: until then the lead is not asked about.
  await expect.poll(async () => (await leads("outcomes")).stdout, { timeout: 10_000 }).toBe("asked Zoho CRM about 1 lead(s) not yet won: 0 now won\n");

  zoho.convert(reference);
  expect((await leads("outcomes")).stdout).toBe("asked Zoho CRM about 1 lead(s) not yet won: 1 now won\n");
  expect(await wonToday(leads)).toMatchObject({ won: 1, value: 0, bySource: { "newsletter/email/spring": [1, 0] } });
  expect((await leads("outcomes")).stdout).toBe("asked Zoho CRM about 0 lead(s) not yet won: 0 now won\n");
  expect(await refused(leads("won", reference, "--value", "85000"))).toEqual([
    1,
    expect.stringMatching(/^leads: with FORM_PROVIDER=zoho-crm, outcomes come from Zoho CRM/),
  ]);
});

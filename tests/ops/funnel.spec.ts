/**
 * The calculator's funnel as the agency reads it (decision 0036): visitors with and without
 * JavaScript counted once per step, a bot not at all, nothing kept that names anyone, the
 * operator's views, what each source brought, and the same visits' leads carrying their source
 * (decision 0042; each provider's fields: transport.test.ts, zoho-crm.test.ts). opsPort 150-151,
 * 154-155; two sites counting into one PostgreSQL: postgres.spec.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Browser } from "@playwright/test";
import { hydrated } from "../support/fixtures";
import { beacon, dataDir, keyed, leadsCommand, postContact } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import type { SourceWorth } from "../../server/funnel-report";
import { messages } from "../../app/content/messages";
import { calculator, dispatchApp, progress } from "../support/wizard";

const today = async (leads: ReturnType<typeof leadsCommand>) => JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout).days[0];
/** The last 7 days' five figures after the landings on the operator's page (metrics port's /funnel, Total row): a cheaper look than the command. */
async function lastWeek(metricsPort: number) {
  const page = await (await fetch(`http://127.0.0.1:${metricsPort}/funnel`)).text();
  const total = /<tr><th scope="row">Total<\/th>(.*?)<\/tr>/.exec(page)?.[1] ?? "";
  const figures = [...total.matchAll(/<td>(\d+)<\/td>/g)].map((m) => m[1]);
  return ["Step 2", "Step 3", "Step 4", "Step 5", "Sent"].map((step, i) => `${step} ${figures[i + 1]}`).join(", "); // after Landed
}

const { fakeService, site } = startedByEachTest();
/** The longest company name and email address the site takes (app/forms/limits.ts). */
const company120 = (token: string) => `Gauteng Freight ${token} `.padEnd(120, "C");
const email254 = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(53)}.example`;

/**
 * One visit, its lead marked `src-<n>-`. `reload`: at step 3, the campaign gone from the address,
 * so the landing comes from session storage; `mistake`: a wrong email first; `longest`: the
 * longest company and email the site takes.
 */
interface Visit {
  js: boolean;
  landing?: string;
  referer?: string;
  to: "step 2" | "send" | "contact";
  userAgent?: string;
  reload?: boolean;
  mistake?: boolean;
  longest?: boolean;
}

/** A visit in a browser of its own, ended once each step's beacon is answered (a closed context could cut one off). */
async function visit(browser: Browser, url: string, v: Visit, n: number) {
  // Each visit a client of its own (behind a pretend proxy): one address adds only a few new sources a day (decision 0041).
  const context = await browser.newContext({
    javaScriptEnabled: v.js,
    extraHTTPHeaders: { "X-Forwarded-For": `203.0.113.${n + 1}` },
    ...(v.userAgent ? { userAgent: v.userAgent } : {}),
  });
  try {
    const page = await context.newPage();
    let beacons = 0;
    page.on("requestfinished", (r) => void (new URL(r.url()).pathname === "/steps" && beacons++));
    await page.goto(`${url}${v.landing ?? "/"}`, v.referer ? { referer: v.referer } : {});
    // The landing is kept once hydrated: a click before that is a post without JavaScript, blind to the referrer.
    if (v.js) await page.waitForFunction(() => sessionStorage.getItem("visit-landing") !== null);
    if (v.to === "contact") {
      const form = page.locator("#contact");
      await form.getByLabel("Name").fill("Lerato Mokoena");
      await form.getByLabel("Email").fill(v.mistake ? "lerato@" : "lerato@mokoena.co.za");
      await form.getByLabel("Service").selectOption("seo");
      await form.getByLabel("Message").fill(`Per-source funnel visit (src-${n}-)`);
      await form.getByRole("button", { name: "Send Message" }).click();
      if (v.mistake) {
        if (!v.js) await expect(page).toHaveURL(/\/\?contact=[\w-]{22}#contact-error-summary$/);
        await form.getByLabel("Email").fill("lerato@mokoena.co.za");
        await form.getByRole("button", { name: "Send Message" }).click();
      }
      await expect(form.getByRole("status")).toHaveText(messages.contactSent);
      return;
    }
    const calc = calculator(page);
    await calc.getByRole("button", { name: dispatchApp.service, exact: true }).click();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    if (v.to === "send") {
      await calc.getByRole("button", { name: dispatchApp.timeframe, exact: true }).click();
      await expect(progress(page)).toHaveText("Step 3 of 5");
      if (v.reload) {
        await page.reload();
        await hydrated(page);
        await expect(progress(page)).toHaveText("Step 3 of 5");
        expect(page.url()).not.toContain("utm_");
      }
      await calc.getByRole("button", { name: dispatchApp.complexity, exact: true }).click();
      await calc.getByLabel("Project description").fill(dispatchApp.description);
      await calc.getByRole("button", { name: "Continue" }).click();
      await expect(progress(page)).toHaveText("Step 5 of 5");
      await calc.getByLabel("Company name").fill(v.longest ? company120(`src-${n}-`) : `Per-source visit (src-${n}-) Ltd`);
      await calc.getByLabel("Email").fill(v.longest ? email254 : "ada@example.com");
      await calc.getByLabel("Phone").fill("+27 11 555 1234");
      await calc.getByRole("button", { name: "Send My Request" }).click();
      await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    }
    if (v.js) await expect.poll(() => beacons).toBe(v.to === "send" ? 4 : 1);
  } finally {
    await context.close();
  }
}

test("one visitor with JavaScript reloads and leaves at step 3, one without sends: 2 = 2, 3 = 2, 4 = 1, 5 = 1, sent 1; a bot not counted; nothing kept", async ({
  browser,
}) => {
  // Over 60 s: three browser visits took 37 s on half a core beside other operational tests.
  test.setTimeout(90_000);
  const dir = dataDir();
  const server = site(opsPort(150), { DATA_DIR: dir, METRICS_PORT: String(opsPort(151)) });
  const leads = leadsCommand(dir);
  await server.listening;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.url}/?utm_source=Newsletter&utm_medium=email`);
  await calculator(page).getByRole("button", { name: dispatchApp.service, exact: true }).click();
  await calculator(page).getByRole("button", { name: dispatchApp.timeframe, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 3 of 5");
  await expect.poll(() => lastWeek(opsPort(151))).toBe("Step 2 1, Step 3 1, Step 4 0, Step 5 0, Sent 0");
  await page.reload();
  await expect(progress(page)).toHaveText("Step 3 of 5");
  await page.goBack();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await calculator(page).getByRole("button", { name: dispatchApp.timeframe, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 3 of 5");
  expect(await context.cookies(), "counting sets no cookie").toEqual([]);
  await context.close();

  await visit(browser, server.url, { js: false, to: "send" }, 0);
  await visit(browser, server.url, { js: false, to: "send", userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }, 1);

  await expect.poll(() => lastWeek(opsPort(151))).toBe("Step 2 2, Step 3 2, Step 4 1, Step 5 1, Sent 1");
  const day = await today(leads);
  expect(day).toMatchObject({ reached: { 2: 2, 3: 2, 4: 1, 5: 1 }, sent: 1, contactSent: 0 });
  expect(day.bySource["newsletter/email"]).toMatchObject({ reached: { 2: 1, 3: 1, 4: 0, 5: 0 }, sent: 0 });
  // Without JavaScript the referring site is not known: not "direct", but "unknown".
  expect(day.bySource.unknown).toMatchObject({ reached: { 2: 1, 3: 1, 4: 1, 5: 1 }, sent: 1 });
  expect(day.byDevice.desktop.reached[2]).toBe(2);

  // Nothing in the funnel's file could name a visitor.
  const bytes = ["funnel.db", "funnel.db-wal"].map((file) => readFileSync(join(dir, file), "latin1")).join("");
  expect(bytes).not.toMatch(/Mozilla|Googlebot|127\.0\.0\.1|Chrome/);

  // The operator's page, on the metrics port only; the counters as metrics.
  const funnelPage = await fetch(`http://127.0.0.1:${opsPort(151)}/funnel`);
  expect([funnelPage.status, funnelPage.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
  expect(await funnelPage.text()).not.toContain("<script");
  expect((await fetch(`${server.url}/funnel`)).status).toBe(404);
  const metrics = await (await fetch(`http://127.0.0.1:${opsPort(151)}/metrics`)).text();
  expect(metrics).toMatch(/^funnel_steps_total\{[^}]*event="2",device="desktop"[^}]*\} 2$/m);
});

test("sixty made-up sources from one address cost neither its send nor another address's campaign its own count", async () => {
  const dir = dataDir();
  const server = site(opsPort(154), { DATA_DIR: dir, CAMPAIGNS: "spring" });
  await server.listening;
  // Sixty sources of common utm words, what a flood would use (decision 0041): twice an address's posts a minute.
  for (const source of ["google", "bing", "yahoo", "facebook", "instagram", "linkedin"])
    for (const medium of ["cpc", "ppc", "cpm", "paid", "display", "banner", "email", "social", "organic", "referral"])
      expect(await beacon(server.url, "2", { landing: `?utm_source=${source}&utm_medium=${medium} `, localAddress: "127.0.0.2" })).toBe(204);
  expect(await beacon(server.url, "2", { landing: "?utm_source=google&utm_medium=cpc&utm_campaign=spring ", localAddress: "127.0.0.3" })).toBe(204);
  expect((await postContact(server.url, "after many steps (funnel)", { localAddress: "127.0.0.2" })).status).toBe(303);
  // The server counts a step without waiting for it: the last count may land a moment after the answer.
  const counted = async () => {
    const { reached, bySource } = await today(leadsCommand(dir));
    return [reached[2], bySource["google/cpc/spring"]?.reached[2], bySource.other?.reached[2]];
  };
  await expect.poll(counted, { timeout: 30_000 }).toEqual([61, 1, 57]);
});

test("what each source brought, per day with its send rate, bots not counted; each lead's webhook JSON carries its source, never a value that may name someone", async ({
  browser,
}) => {
  // Thirteen browser visits: 20-30 s here; four times that and room to spare on a slower machine.
  test.setTimeout(240_000);
  const dir = dataDir();
  const fake = await fakeService();
  const settings = { CAMPAIGNS: "spring", REFERRER_SITES: "example.co.za", TRUST_PROXY: "1", FORM_PROVIDER: "webhook" };
  const server = site(opsPort(155), keyed(fake, dir, settings));
  const leads = leadsCommand(dir);
  await server.listening;
  const spring = "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring";
  // Referers over http: a browser drops an https page's address on the way to this http server.
  const visits: Visit[] = [
    { js: true, landing: spring, to: "step 2" },
    { js: true, landing: spring, to: "send", reload: true },
    { js: false, landing: spring, to: "send", longest: true },
    { js: false, landing: spring, to: "contact", mistake: true },
    { js: true, referer: "http://example.co.za/blog", to: "step 2" },
    { js: true, referer: "http://blog.example.co.za/post", to: "contact" },
    { js: true, referer: "http://www.google.com/", to: "send" },
    { js: true, landing: "/?utm_source=newsletter&utm_medium=email&utm_campaign=summer", to: "step 2" }, // not in CAMPAIGNS
    { js: false, to: "step 2" },
    { js: true, to: "step 2" },
    // A headless browser that says so, and a script: isbot's, so neither counts.
    {
      js: false,
      landing: spring,
      to: "send",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36",
    },
    { js: true, landing: spring, to: "step 2", userAgent: "curl/8.5.0" },
    { js: true, landing: "/?utm_source=newsletter&utm_medium=email&utm_campaign=jane@x.co", to: "contact" }, // it may name someone
  ];
  for (const [n, v] of visits.entries()) await visit(browser, server.url, v, n);
  expect((await postContact(server.url, "a script's contact message (funnel)", { forwardedFor: "203.0.113.99" })).status).toBe(303); // no user agent at all

  // Hand-counted: [reached step 2, sent, contact messages], the rate sent / step 2.
  const expected = {
    "newsletter/email/spring": ["newsletter · email · spring", 3, 2, 1, 2 / 3],
    "site:example.co.za": ["A link on example.co.za", 1, 0, 1, 0],
    "search:google": ["Google search", 1, 1, 0, 1],
    other: ["Other (not named)", 1, 0, 1, 0],
    unknown: ["Not known (no JavaScript)", 1, 0, 0, 0],
    direct: ["Direct", 1, 0, 0, 0],
  } as const;
  const { date } = await today(leads); // the agency's day (Africa/Johannesburg), as the command gives it
  const counted = async () => {
    const { sources } = JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout) as { sources: SourceWorth[] };
    return Object.fromEntries(
      // The landings these visits make: tests/ops/landings.spec.ts.
      sources.map(({ key, name, step2, sent, contactSent, sendRate, days }) => [
        key,
        [name, step2, sent, contactSent, sendRate, days.map(({ landed: _, ...day }) => day)],
      ]),
    );
  };
  const perDay = ([key, [name, step2, sent, contact, rate]]: [string, (typeof expected)[keyof typeof expected]]) =>
    [key, [name, step2, sent, contact, rate, [{ date, step2, sent, contactSent: contact, sendRate: rate, won: 0, value: 0 }]]] as const;
  // The server counts a step without waiting for it: the last counts may land a moment after the answer.
  await expect.poll(counted, { timeout: 30_000 }).toEqual(Object.fromEntries(Object.entries(expected).map(perDay)));

  // Each lead's source as the webhook's JSON gives it whole: its parts, and the message's line in words before the reference.
  const line = (words: string) => new RegExp(`\\n\\nCame from: ${words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n\\nReference: \\d{8}-\\w{8}$`);
  const arrived = async (n: number) => {
    await expect.poll(() => fake.accepted(`src-${n}-`).length, { timeout: 30_000, message: `src-${n}- delivered` }).toBe(1);
    return fake.accepted(`src-${n}-`)[0] as { source: unknown; message: string };
  };
  for (const n of [1, 2, 3]) {
    const { source, message } = await arrived(n);
    expect([source, message], `src-${n}-`).toEqual([
      {
        kind: "campaign",
        utm_source: "newsletter",
        utm_medium: "email",
        utm_campaign: "spring",
        utm_content: "",
        utm_term: "",
        referrer: "",
        text: "newsletter, email, spring",
      },
      expect.stringMatching(line("newsletter, email, spring")),
    ]);
  }
  // The whole company and address, as typed: a form service takes them as they are.
  const { message } = await arrived(2);
  expect([message.includes(`Company: ${company120("src-2-")}\n`), message.includes(`Email: ${email254}\n`)]).toEqual([true, true]);
  const listed = await arrived(5);
  expect(listed.source).toEqual({
    kind: "site",
    utm_source: "",
    utm_medium: "",
    utm_campaign: "",
    utm_content: "",
    utm_term: "",
    referrer: "example.co.za",
    text: "a link on example.co.za",
  });
  expect(listed.message).toMatch(line("a link on example.co.za"));
  const other = await arrived(12);
  expect(other.source).toMatchObject({ kind: "other", utm_source: "", utm_campaign: "" });
  expect(other.message).toMatch(line("a campaign or link the site does not name"));
  expect(JSON.stringify(fake.received()), "a value that may name someone is never passed on").not.toContain("jane@x.co");
});

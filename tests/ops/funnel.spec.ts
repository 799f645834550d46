/**
 * The calculator's funnel as the agency reads it (decision 0036): visitors with and without
 * JavaScript counted once per step, a bot not at all, nothing kept that names anyone, and the
 * operator's views (the command, the metrics port's page), and what each source brought. Each
 * test starts its own server from build/ (opsPort 150-156), and one its own PostgreSQL.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Browser } from "@playwright/test";
import { startPostgres } from "../support/postgres";
import { dataDir, leadsCommand, postContact, serve } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";
import type { SourceWorth } from "../../server/funnel-report";
import { messages } from "../../app/content/messages";
import { calculator, dispatchApp, progress } from "../support/wizard";

const today = async (leads: ReturnType<typeof leadsCommand>) => JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout).days[0];
/**
 * The last 7 days' five figures on the operator's page (the metrics port's /funnel, read from the
 * store the command reads: the first table's Total row): what the test waits on, a request each
 * look, where each look of the command starts npm and Node (seconds on a busy machine, longer
 * than a poll's wait).
 */
async function lastWeek(metricsPort: number) {
  const page = await (await fetch(`http://127.0.0.1:${metricsPort}/funnel`)).text();
  const total = /<tr><th scope="row">Total<\/th>(.*?)<\/tr>/.exec(page)?.[1] ?? "";
  const figures = [...total.matchAll(/<td>(\d+)<\/td>/g)].map((m) => m[1]);
  return ["Step 2", "Step 3", "Step 4", "Step 5", "Sent"].map((step, i) => `${step} ${figures[i]}`).join(", ");
}

/** What a test started, ended after it whatever its end (a timeout abandons the test's body and its finally). */
const started: (() => unknown)[] = [];
test.afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
});

/** A visitor without JavaScript: every step a post, then the send. */
async function sendWithoutJs(browser: Browser, url: string, userAgent?: string) {
  const context = await browser.newContext({ javaScriptEnabled: false, ...(userAgent ? { userAgent } : {}) });
  const page = await context.newPage();
  const calc = calculator(page);
  await page.goto(`${url}/`);
  for (const choice of [dispatchApp.service, dispatchApp.timeframe, dispatchApp.complexity])
    await calc.getByRole("button", { name: choice, exact: true }).click();
  await calc.getByLabel("Project description").fill(dispatchApp.description);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await calc.getByLabel("Company name").fill("Funnel Test Ltd");
  await calc.getByLabel("Email").fill("ada@example.com");
  await calc.getByLabel("Phone").fill("+27 11 555 1234");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(page).toHaveURL(/\?sent=calculator/);
  await context.close();
}

test("a visitor with JavaScript who chooses a service and a timeframe, reloads and leaves, and one without who sends: 2 = 2, 3 = 2, 4 = 1, 5 = 1, sent = 1; a bot counts nothing; no cookie, no address, no agent kept", async ({
  browser,
}) => {
  // Over 60 s: a server and three browser visits, two walking the calculator, took 12-19 s alone
  // with the test on a busy core, 37 s on half a core beside other operational tests.
  test.setTimeout(90_000);
  const dir = dataDir();
  const server = serve(opsPort(150), { DATA_DIR: dir, METRICS_PORT: String(opsPort(151)) });
  const leads = leadsCommand(dir);
  try {
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

    await sendWithoutJs(browser, server.url);
    await sendWithoutJs(browser, server.url, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");

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
  } finally {
    server.kill();
  }
});

test("two sites on one PostgreSQL add to one total, which npm run -s leads -- funnel reads there with DATABASE_URL; neither data folder keeps counts", async ({
  request,
}) => {
  const postgres = await startPostgres({ parent: e2eDir });
  started.push(() => postgres.stop());
  const DATABASE_URL = await postgres.database("site");
  const [dirA, dirB] = [dataDir(), dataDir()];
  const a = serve(opsPort(152), { DATA_DIR: dirA, DATABASE_URL });
  const b = serve(opsPort(153), { DATA_DIR: dirB, DATABASE_URL });
  started.push(a.kill, b.kill);
  await Promise.all([a.listening, b.listening]);
  const beacon = (url: string, event: string) =>
    request.post(`${url}/steps`, { form: { event, "visit.landing": "" }, headers: { "Sec-Fetch-Site": "same-origin" } });
  for (const [url, event] of [
    [a.url, "2"],
    [b.url, "2"],
    [b.url, "3"],
  ] as const)
    expect((await beacon(url, event)).status()).toBe(204);
  // The server counts a step without waiting for it: the last count may land a moment after the answer.
  for (const dir of [dirA, dirB])
    await expect.poll(async () => (await today(leadsCommand(dir, { DATABASE_URL }))).reached, { timeout: 30_000 }).toEqual({ 2: 2, 3: 1, 4: 0, 5: 0 });
  // Without DATABASE_URL the command reads a data folder's own file: the sites kept no counts there.
  expect(existsSync(join(dirA, "funnel.db")) || existsSync(join(dirB, "funnel.db")), "no funnel.db in either data folder").toBe(false);
});

test("a visitor's beacons never cost their send: thirty-five steps counted, then the contact form still goes through", async ({ request }) => {
  const server = serve(opsPort(154), { DATA_DIR: dataDir() });
  try {
    await server.listening;
    for (let i = 0; i < 35; i++) {
      const beacon = await request.post(`${server.url}/steps`, { form: { event: "2", "visit.landing": "" }, headers: { "Sec-Fetch-Site": "same-origin" } });
      expect(beacon.status()).toBe(204);
    }
    expect((await postContact(server.url, "after many steps (funnel)")).status).toBe(303);
  } finally {
    server.kill();
  }
});

/** One visit for the per-source test: where it lands (and from where), with JavaScript or not, and how far it goes. */
interface Visit {
  js: boolean;
  landing?: string;
  referer?: string;
  to: "step 2" | "send" | "contact";
  userAgent?: string;
}

/**
 * A visit in a browser of its own. With JavaScript the steps are counted by the page's beacons,
 * which a closed context could cut off: the visit ends once each step's beacon has been answered.
 */
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
    // The page keeps its landing once hydrated (root.tsx): a click before that is a post without
    // JavaScript, which knows the page's utm values but not the referring site.
    if (v.js) await page.waitForFunction(() => sessionStorage.getItem("visit-landing") !== null);
    if (v.to === "contact") {
      const form = page.locator("#contact");
      await form.getByLabel("Name").fill("Lerato Mokoena");
      await form.getByLabel("Email").fill("lerato@mokoena.co.za");
      await form.getByLabel("Service").selectOption("seo");
      await form.getByLabel("Message").fill(`Per-source funnel visit ${n}`);
      await form.getByRole("button", { name: "Send Message" }).click();
      await expect(form.getByRole("status")).toHaveText(messages.contactSent);
      return;
    }
    const calc = calculator(page);
    await calc.getByRole("button", { name: dispatchApp.service, exact: true }).click();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    if (v.to === "send") {
      await calc.getByRole("button", { name: dispatchApp.timeframe, exact: true }).click();
      await calc.getByRole("button", { name: dispatchApp.complexity, exact: true }).click();
      await calc.getByLabel("Project description").fill(dispatchApp.description);
      await calc.getByRole("button", { name: "Continue" }).click();
      await expect(progress(page)).toHaveText("Step 5 of 5");
      await calc.getByLabel("Company name").fill(`Per-source visit ${n} Ltd`);
      await calc.getByLabel("Email").fill("ada@example.com");
      await calc.getByLabel("Phone").fill("+27 11 555 1234");
      await calc.getByRole("button", { name: "Send My Request" }).click();
      await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    }
    if (v.js) await expect.poll(() => beacons).toBe(v.to === "send" ? 4 : 1);
  } finally {
    await context.close();
  }
}

/** What each source brought, as GET /funnel's table shows it for the last 7 days: each source's totals, and its row of `date`. */
async function funnelTables(browser: Browser, metricsPort: number, date: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${metricsPort}/funnel`);
    return await page.evaluate((date) => {
      const totals: Record<string, string[]> = {};
      const today: Record<string, string[]> = {};
      let source = "";
      // The first such table is the last 7 days'; a source's row, then a row for each day it brought any.
      for (const row of document.querySelectorAll("table.sources tbody")[0]!.querySelectorAll("tr")) {
        const [name = "", ...cells] = [...row.querySelectorAll("th, td")].map((cell) => cell.textContent!.trim());
        if (!row.classList.contains("day")) {
          source = name;
          totals[name] = cells;
        } else if (name === date) today[source] = cells;
      }
      return { totals, today };
    }, date);
  } finally {
    await page.close();
  }
}

test("what each source brought: visits from a campaign, a listed site, a search engine, an unnamed campaign, direct and not known, with JavaScript and without, counted per source and day with the step-2-to-send rate as hand-counted; bots and scripts not at all", async ({
  browser,
}) => {
  // Twelve browser visits, one after another, and the command run a few times: 20-30 s here beside
  // the file's other tests; four times that and room to spare on a machine four times slower.
  test.setTimeout(240_000);
  const dir = dataDir();
  const server = serve(opsPort(155), {
    DATA_DIR: dir,
    METRICS_PORT: String(opsPort(156)),
    CAMPAIGNS: "spring",
    REFERRER_SITES: "example.co.za",
    TRUST_PROXY: "1",
  });
  started.push(server.kill);
  const leads = leadsCommand(dir);
  try {
    await server.listening;
    const spring = "/?utm_source=newsletter&utm_medium=email&utm_campaign=spring";
    // A link's Referer as the browser sends it: over http here, since a browser drops an https
    // page's address on the way to an http one (this server), as it should.
    const visits: Visit[] = [
      { js: true, landing: spring, to: "step 2" },
      { js: true, landing: spring, to: "send" },
      { js: false, landing: spring, to: "send" },
      { js: false, landing: spring, to: "contact" },
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
    ];
    for (const [n, v] of visits.entries()) await visit(browser, server.url, v, n);
    expect((await postContact(server.url, "a script's contact message (funnel)", { forwardedFor: "203.0.113.99" })).status).toBe(303); // no user agent at all

    // Hand-counted: [reached step 2, sent, contact messages], the rate sent / step 2.
    const expected = {
      "newsletter/email/spring": ["newsletter · email · spring", 3, 2, 1, 2 / 3],
      "site:example.co.za": ["A link on example.co.za", 1, 0, 1, 0],
      "search:google": ["Google search", 1, 1, 0, 1],
      other: ["Other (not named)", 1, 0, 0, 0],
      unknown: ["Not known (no JavaScript)", 1, 0, 0, 0],
      direct: ["Direct", 1, 0, 0, 0],
    } as const;
    const { date } = await today(leads); // the agency's day (Africa/Johannesburg), as the command gives it
    const counted = async () => {
      const { sources } = JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout) as { sources: SourceWorth[] };
      return Object.fromEntries(
        sources.map(({ key, name, step2, sent, contactSent, sendRate, days }) => [key, [name, step2, sent, contactSent, sendRate, days]]),
      );
    };
    // The server counts a step without waiting for it: the last counts may land a moment after the answer.
    await expect
      .poll(counted, { timeout: 30_000 })
      .toEqual(
        Object.fromEntries(
          Object.entries(expected).map(([key, [name, step2, sent, contact, rate]]) => [
            key,
            [name, step2, sent, contact, rate, [{ date, step2, sent, contactSent: contact, sendRate: rate }]],
          ]),
        ),
      );

    // The operator's page says the same, for the last 7 days and as today's row of each source.
    const percent = (rate: number) => `${Math.round(rate * 100)}%`;
    const rows = Object.fromEntries(
      Object.values(expected).map(([name, step2, sent, contact, rate]) => [name, [`${step2}`, `${sent}`, percent(rate), `${contact}`]]),
    );
    expect(await funnelTables(browser, opsPort(156), date)).toEqual({ totals: rows, today: rows });
  } finally {
    server.kill();
  }
});

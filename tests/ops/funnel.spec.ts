/**
 * The calculator's funnel as the agency reads it (decision 0036): visitors with and without
 * JavaScript counted once per step, a bot not at all, nothing kept that names anyone, and the
 * operator's views (the command, the metrics port's page). Each test starts its own server from
 * build/ (opsPort 150-154).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Browser } from "@playwright/test";
import { startRedis } from "../support/redis";
import { dataDir, leadsCommand, postContact, serve } from "../support/server";
import { opsPort } from "../support/sites";
import { calculator, dispatchApp, progress } from "../support/wizard";

const today = async (leads: ReturnType<typeof leadsCommand>) => JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout).days[0];
/**
 * The last 7 days' five figures on the operator's page (the metrics port's /funnel, read from the
 * store the command reads): what the test waits on, a request each look, where each look of the
 * command starts npm and Node (seconds on a busy machine, longer than a poll's wait).
 */
const lastWeek = async (metricsPort: number) =>
  /aria-label="Last 7 days[^"]*?(Step 2 \d+, Step 3 \d+, Step 4 \d+, Step 5 \d+, Sent \d+)"/.exec(
    await (await fetch(`http://127.0.0.1:${metricsPort}/funnel`)).text(),
  )?.[1];

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
    expect(day.bySource.direct).toMatchObject({ reached: { 2: 1, 3: 1, 4: 1, 5: 1 }, sent: 1 });
    expect(day.byDevice.desktop.reached[2]).toBe(2);

    // Nothing in the funnel's file could name a visitor.
    const bytes = ["funnel.db", "funnel.db-wal"].map((file) => readFileSync(join(dir, file), "latin1")).join("");
    expect(bytes).not.toMatch(/Mozilla|Googlebot|127\.0\.0\.1|Chrome/);

    // The operator's page, on the metrics port only; the counters as metrics.
    const funnelPage = await fetch(`http://127.0.0.1:${opsPort(151)}/funnel`);
    expect([funnelPage.status, funnelPage.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await funnelPage.text()).toMatch(/<svg [^>]*aria-label="Last 7 days[^"]*Step 2 2, Step 3 2, Step 4 1, Step 5 1, Sent 1"/);
    expect((await fetch(`${server.url}/funnel`)).status).toBe(404);
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort(151)}/metrics`)).text();
    expect(metrics).toMatch(/^funnel_steps_total\{event="2",device="desktop"\} 2$/m);
  } finally {
    server.kill();
  }
});

test("two containers on one Redis give one total", async ({ request }) => {
  const redis = await startRedis();
  const [dirA, dirB] = [dataDir(), dataDir()];
  const a = serve(opsPort(152), { DATA_DIR: dirA, REDIS_URL: redis.url });
  const b = serve(opsPort(153), { DATA_DIR: dirB, REDIS_URL: redis.url });
  try {
    await Promise.all([a.listening, b.listening]);
    const beacon = (url: string, event: string) =>
      request.post(`${url}/steps`, { form: { event, "visit.device": "phone", "visit.source": "direct" }, headers: { "Sec-Fetch-Site": "same-origin" } });
    for (const [url, event] of [
      [a.url, "2"],
      [b.url, "2"],
      [b.url, "3"],
    ] as const)
      expect((await beacon(url, event)).status()).toBe(204);
    for (const dir of [dirA, dirB]) expect((await today(leadsCommand(dir, { REDIS_URL: redis.url }))).reached).toEqual({ 2: 2, 3: 1, 4: 0, 5: 0 });
  } finally {
    a.kill();
    b.kill();
    await redis.stop();
  }
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

/**
 * Landings (decision 0051): a page opened from outside the site counted under its source, with
 * JavaScript and without, a step inside the site and a bot not; one address's landings bounded a
 * day, and the last batch written at a stop. (What counts, case by case: server/landings.test.ts.)
 * opsPort 196-197.
 */
import { get } from "node:http";
import { expect, test } from "@playwright/test";
import { dataDir, leadsCommand } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { LANDINGS_A_CLIENT } from "../../server/landings";
import type { FunnelDay } from "../../server/funnel";

const { site, stop } = startedByEachTest();
const today = async (dir: string): Promise<FunnelDay> => JSON.parse((await leadsCommand(dir)("funnel", "--json", "--days", "1")).stdout).days[0];
const landedBySource = async (dir: string) => Object.fromEntries(Object.entries((await today(dir)).bySource).map(([key, steps]) => [key, steps.landed]));

test("landings counted per source, with JavaScript and without; a step inside the site and a bot not counted", async ({ browser }) => {
  const dir = dataDir();
  // Behind a pretend proxy, each landing a visitor of its own: one address adds only a few new sources a day (decision 0041).
  const server = site(opsPort(196), { DATA_DIR: dir, CAMPAIGNS: "spring", TRUST_PROXY: "1" });
  await server.listening;
  let visitor = 0;
  for (const js of [true, false]) {
    const context = await browser.newContext({ javaScriptEnabled: js });
    const page = await context.newPage();
    const land = async (path: string, referer?: string) => {
      await page.setExtraHTTPHeaders({ "X-Forwarded-For": `203.0.113.${++visitor}` });
      await page.goto(`${server.url}${path}`, referer ? { referer } : {});
    };
    // Referers over http: a browser drops an https page's address on the way to this http server.
    await land("/services", "http://www.linkedin.com/feed/");
    await land("/?utm_source=newsletter&utm_medium=email&utm_campaign=spring");
    await land("/work", "http://www.google.com/");
    await land("/about");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Services" }).click();
    await expect(page).toHaveURL(`${server.url}/services`);
    await context.close();
  }
  const bot = await browser.newContext({ userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" });
  await (await bot.newPage()).goto(`${server.url}/services`, { referer: "http://www.linkedin.com/feed/" });
  await bot.close();

  const landed = { "social:linkedin": 2, "newsletter/email/spring": 2, "search:google": 2, direct: 2 };
  await expect.poll(() => landedBySource(dir), { timeout: 20_000 }).toEqual(landed);
  expect(await today(dir)).toMatchObject({ landed: 8, reached: { 2: 0 }, byDevice: { desktop: { landed: 8 } } });
  const { sources } = JSON.parse((await leadsCommand(dir)("funnel", "--json", "--days", "1")).stdout) as { sources: { key: string; landed: number }[] };
  expect(Object.fromEntries(sources.map(({ key, landed }) => [key, landed]))).toEqual(landed);
  const text = (await leadsCommand(dir)("funnel", "--days", "1")).stdout;
  expect(text).toMatch(/^Source \/ day +Landed +Step 2/m);
  expect(text).toMatch(/^LinkedIn \(social\) +2 +0 +0 +0 +0 +0 +– +0 +0 +0$/m); // landed, steps 2-5, sent, rate, contact, won, value
});

test(`one address unable to add landings past its daily bound (${LANDINGS_A_CLIENT}); another address still counts; nothing lost at a stop`, async () => {
  const dir = dataDir();
  // No proxy in front: the client is the socket's address.
  const server = site(opsPort(197), { DATA_DIR: dir });
  await server.listening;
  const land = (localAddress: string) =>
    new Promise<number>((resolve, reject) => {
      const headers = {
        "user-agent": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
        referer: "https://www.linkedin.com/",
      };
      get(`${server.url}/services`, { localAddress, headers }, (res) => resolve(res.resume().statusCode!)).on("error", reject);
    });
  const answers = [];
  for (let i = 0; i < LANDINGS_A_CLIENT + 15; i++) answers.push(await land("127.0.0.2"));
  answers.push(await land("127.0.0.3"));
  expect(new Set(answers), "every landing is answered, counted or not").toEqual(new Set([200]));
  await expect.poll(() => landedBySource(dir), { timeout: 20_000 }).toEqual({ "social:linkedin": LANDINGS_A_CLIENT + 1 });

  // Landings written by the stop, before the database closes (not in time for the batch's few seconds).
  for (const from of ["127.0.0.4", "127.0.0.5"]) await land(from);
  await stop(server);
  expect(await landedBySource(dir)).toEqual({ "social:linkedin": LANDINGS_A_CLIENT + 3 });
});

/**
 * The operator's campaigns changed without a restart, and a campaign's content and term in what the agency receives
 * (docs/operations.md, "Where a visit came from"; decision 0052): real browsers, with JavaScript and without.
 * opsPort 192-194.
 */
import { expect, test, type Browser } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { beacon, dataDir, keyed, leadsCommand } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { calculator, dispatchApp, progress } from "../support/wizard";

const { fakeService, postgres, site } = startedByEachTest();

/** A visit in a browser of its own, a client of its own (behind a pretend proxy), to step 2, or on to the send with its lead marked `token`. */
async function visit(browser: Browser, url: string, js: boolean, n: number, token?: string) {
  const context = await browser.newContext({ javaScriptEnabled: js, extraHTTPHeaders: { "X-Forwarded-For": `203.0.113.${n}` } });
  try {
    const page = await context.newPage();
    const beacons: string[] = [];
    page.on("requestfinished", (r) => void (new URL(r.url()).pathname === "/steps" && beacons.push(r.url())));
    await page.goto(url);
    // The landing is kept once hydrated: a click before that is a post without JavaScript.
    if (js) await page.waitForFunction(() => sessionStorage.getItem("visit-landing") !== null);
    const calc = calculator(page);
    await calc.getByRole("button", { name: dispatchApp.service, exact: true }).click();
    await expect(progress(page)).toHaveText("Step 2 of 5");
    if (token) {
      await calc.getByRole("button", { name: dispatchApp.timeframe, exact: true }).click();
      await calc.getByRole("button", { name: dispatchApp.complexity, exact: true }).click();
      await calc.getByLabel("Project description").fill(dispatchApp.description);
      await calc.getByRole("button", { name: "Continue" }).click();
      await calc.getByLabel("Company name").fill(`Tagged visit (${token}) Ltd`);
      await calc.getByLabel("Email").fill("ada@example.com");
      await calc.getByLabel("Phone").fill("+27 11 555 1234");
      await calc.getByRole("button", { name: "Send My Request" }).click();
      await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    }
    if (js) await expect.poll(() => beacons.length).toBe(token ? 4 : 1);
  } finally {
    await context.close();
  }
}

test("a campaign added by the command is counted without a restart, on two sites on one PostgreSQL", async ({ browser }) => {
  // Over 60 s: the sites' next read of the lists (every 15 s) and three browser visits beside other operational tests.
  test.setTimeout(150_000);
  const db = await (await postgres()).database("lists");
  const dirs = [dataDir(), dataDir()];
  const [a, b] = dirs.map((dir, i) => site(opsPort(192 + i), { DATA_DIR: dir, DATABASE_URL: db, CAMPAIGNS: "spring", TRUST_PROXY: "1" }));
  await Promise.all([a!.listening, b!.listening]);
  const leads = leadsCommand(dirs[0]!, { DATABASE_URL: db });
  const autumn = "?utm_source=newsletter&utm_medium=email&utm_campaign=autumn";
  const step2 = async () => {
    const { bySource } = JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout).days[0];
    return { autumn: bySource["newsletter/email/autumn"]?.reached[2] ?? 0, other: bySource.other?.reached[2] ?? 0 };
  };

  // Not listed yet: "other".
  await visit(browser, `${b!.url}/${autumn}`, true, 1);
  await expect.poll(step2).toEqual({ autumn: 0, other: 1 });
  // CAMPAIGNS was added to the store's list at the start.
  expect((await leads("campaigns", "list")).stdout).toBe("spring\n");

  expect((await leads("campaigns", "add", "autumn")).stdout).toMatch(/^autumn added to the campaigns: every server counts by the change within a minute/);
  // Each site's next read of the lists, seen as a beacon's step 2 counted under the campaign, not "other": within a minute.
  let beacons = 0;
  for (const served of [a!, b!]) {
    const counted = (await step2()).autumn;
    await expect
      .poll(
        async () => {
          expect(await beacon(served.url, "2", { landing: `${autumn} `, localAddress: `127.0.41.${++beacons}` })).toBe(204);
          return (await step2()).autumn;
        },
        { timeout: 60_000, intervals: [1_000] },
      )
      .toBeGreaterThan(counted);
  }
  // Every beacon's count landed (the server counts after answering).
  await expect.poll(async () => Object.values(await step2()).reduce((sum, n) => sum + n)).toBe(beacons + 1);
  const before = await step2();
  // On the other site than the command's, with JavaScript and without.
  await visit(browser, `${b!.url}/${autumn}`, true, 2);
  await visit(browser, `${b!.url}/${autumn}`, false, 3);
  await expect.poll(step2).toEqual({ autumn: before.autumn + 2, other: before.other });
});

test("a campaign's utm_content in the message's Came from line when listed or common vocabulary; an unlisted one absent, the campaign still named", async ({
  browser,
}) => {
  // Three visits to the send: 20-30 s here, four times that on a slower machine.
  test.setTimeout(150_000);
  const fake = await fakeService();
  const dir = dataDir();
  const server = site(opsPort(194), keyed(fake, dir, { CAMPAIGNS: "spring,post-a", FORM_PROVIDER: "webhook", TRUST_PROXY: "1" }));
  await server.listening;
  const spring = "/?utm_source=linkedin&utm_medium=social&utm_campaign=spring";
  await visit(browser, `${server.url}${spring}&utm_content=post-a&utm_term=web+design+jane`, true, 1, "content-1-");
  await visit(browser, `${server.url}${spring}&utm_content=video`, false, 2, "content-2-");
  await visit(browser, `${server.url}${spring}&utm_content=jane-doe-post`, false, 3, "content-3-");

  const arrived = async (token: string) => {
    await expect.poll(() => fake.accepted(token).length, { timeout: 30_000, message: `${token} delivered` }).toBe(1);
    const { source, message } = fake.accepted(token)[0] as { source: Record<string, string>; message: string };
    return [/\n\nCame from: (.*)\n\nReference: /.exec(message)?.[1], source.utm_content, source.utm_term];
  };
  expect(await arrived("content-1-")).toEqual(["linkedin, social, spring, content post-a", "post-a", ""]);
  expect(await arrived("content-2-")).toEqual(["linkedin, social, spring, content video", "video", ""]);
  expect(await arrived("content-3-")).toEqual(["linkedin, social, spring", "", ""]);
  expect(JSON.stringify(fake.received()), "an unlisted value is passed on nowhere").not.toMatch(/jane/);
  // The funnel counts each by its content: a listed one its own source, an unlisted one the campaign itself.
  const { bySource } = JSON.parse((await leadsCommand(dir)("funnel", "--json", "--days", "1")).stdout).days[0];
  expect(Object.fromEntries(Object.entries(bySource).map(([key, steps]) => [key, (steps as { sent: number }).sent]))).toEqual({
    "linkedin/social/spring/post-a": 1,
    "linkedin/social/spring/video": 1,
    "linkedin/social/spring": 1,
  });
});

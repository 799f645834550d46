/**
 * The figures for marketing (decision 0054): `funnel --csv`, and the link `funnel-link` prints, which shows the
 * funnel's page on the public port, read-only and with no script, to browsers with JavaScript and without; once
 * revoked, expired or forged, the site's plain 404, as any unknown address gets. opsPort 142.
 */
import { join } from "node:path";
import { expect, test, type Browser } from "@playwright/test";
import { openDb } from "../../server/db";
import { openFunnel } from "../../server/funnel";
import { linkKey, signLink } from "../../server/funnel-link";
import { dataDir, leadsCommand } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { calculator, dispatchApp, progress } from "../support/wizard";

const { site } = startedByEachTest();
const SPRING = "newsletter/email/spring";

/** A visit from the spring newsletter that chooses a service (step 2), with JavaScript or without. */
async function toStep2(browser: Browser, url: string, js: boolean, n: number) {
  const context = await browser.newContext({ javaScriptEnabled: js, extraHTTPHeaders: { "X-Forwarded-For": `203.0.113.${n}` } });
  const page = await context.newPage();
  let beacons = 0;
  page.on("requestfinished", (r) => void (new URL(r.url()).pathname === "/steps" && beacons++));
  await page.goto(`${url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
  if (js) await page.waitForFunction(() => sessionStorage.getItem("visit-landing") !== null);
  await calculator(page).getByRole("button", { name: dispatchApp.service, exact: true }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  if (js) await expect.poll(() => beacons).toBe(1);
  await context.close();
}

/** An answer as a visitor could compare it: its status, headers and body, the address it names and its CSP's hashes (of that script) aside. */
async function answer(url: string) {
  const response = await fetch(url);
  const path = new URL(url).pathname;
  const headers = Object.fromEntries(
    [...response.headers]
      .filter(([name]) => !["date", "content-length"].includes(name))
      .map(([name, value]) => [name, name === "content-security-policy" ? value.replace(/'sha256-[^']+'/g, "'hash'") : value]),
  );
  return { status: response.status, headers, body: (await response.text()).replaceAll(path, "(the address)") };
}

test("funnel-link prints an address that shows the funnel, steps 3-5 per source among its figures, read-only and with no script, with JavaScript and without; revoked, expired or forged it is the site's plain 404; funnel --csv the same figures", async ({
  browser,
}) => {
  // Two browser visits and two page loads: 10 s here; four times that and room on a slower machine.
  test.setTimeout(90_000);
  const dir = dataDir();
  const port = opsPort(142);
  const origin = `http://127.0.0.1:${port}`;
  const settings = { CAMPAIGNS: "spring", SITE_ORIGIN: origin, TRUST_PROXY: "1" };
  const server = site(port, { DATA_DIR: dir, ...settings });
  const leads = leadsCommand(dir, settings); // as the operator runs it, with the site's settings
  await server.listening;

  // Two real visits reach step 2; the landings and the later steps written as the server would count them.
  await toStep2(browser, server.url, true, 1);
  await toStep2(browser, server.url, false, 2);
  const db = openDb({ file: join(dir, "funnel.db") }, { synchronous: "NORMAL" });
  const funnel = openFunnel({ db, log: { warn: () => undefined }, settings: { names: new Set(["spring"]), sites: [] } });
  for (const event of [...Array<"landed">(12).fill("landed"), "3", "3", "4", "5"] as const) await funnel.add({ event, device: "phone", source: SPRING });
  await funnel.close();
  await db.close();
  const today = async () => JSON.parse((await leads("funnel", "--json", "--days", "1")).stdout).days[0];
  // The visits' own two landings are written in the server's next batch (within 5 s): the page reads them all.
  await expect
    .poll(async () => {
      const { landed, reached } = (await today()).bySource[SPRING] ?? {};
      return { landed, reached };
    })
    .toEqual({ landed: 14, reached: { 2: 2, 3: 2, 4: 1, 5: 1 } });
  const { date } = await today();
  const landed = 14;

  // The CSV: a header, and a row a day, source and device.
  const csv = (await leads("funnel", "--csv", "--days", "1")).stdout.split("\r\n");
  expect(csv[0]).toBe("day,source,source name,device,landed,step 2,step 3,step 4,step 5,sent,contact,won,value (rand)");
  expect(csv).toContain(`${date},${SPRING},newsletter · email · spring,phone,12,0,2,1,1,0,0,0,0`);
  expect(csv.find((row) => row.startsWith(`${date},${SPRING},newsletter · email · spring,desktop,`))).toMatch(/,\d+,2,0,0,0,0,0,0,0$/);

  // The link, on the public port (the first SITE_ORIGIN), for anyone holding it, with and without JavaScript.
  const made = await leads("funnel-link", "--days", "3");
  const link = made.stdout.trim();
  expect(link).toMatch(new RegExp(`^${origin}/funnel/\\d+\\.[\\w-]{43}$`));
  expect(made.stderr).toMatch(/^anyone holding this address sees the funnel until /);
  for (const javaScriptEnabled of [true, false]) {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const response = (await page.goto(link))!;
    expect(response.status()).toBe(200);
    const headers = response.headers();
    expect([headers["cache-control"], headers["x-robots-tag"], headers["referrer-policy"]]).toEqual(["no-store", "noindex", "no-referrer"]);
    expect(headers["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'; /);
    expect(headers["content-security-policy"]).not.toMatch(/script-src|unsafe/);
    expect(await response.text()).not.toMatch(/<script/i);
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Calculator funnel");
    await expect(page.locator("form, button, input, a[href]"), "nothing on the page changes anything").toHaveCount(0);

    const week = page.locator("table.days").first();
    await expect(week.locator("thead th")).toHaveText(["Day", "Landed", "Step 2", "Step 3", "Step 4", "Step 5", "Sent", "Contact", "Won", "Value (R)"]);
    const sources = page.locator("table.sources").first();
    await expect(sources.locator("thead th")).toHaveText([
      "Source / day",
      "Landed",
      "Step 2",
      "Step 3",
      "Step 4",
      "Step 5",
      "Sent",
      "Step 2 → sent",
      "Contact",
      "Won",
      "Value (R)",
    ]);
    const spring = sources.locator("tbody tr").filter({ has: page.getByRole("rowheader", { name: "newsletter · email · spring", exact: true }) });
    await expect(spring.locator("td")).toHaveText([String(landed), "2", "2", "1", "1", "0", "0%", "0", "0", "0"]);
    await context.close();
  }

  // Expired (signed by the store's key with a past expiry), forged, malformed: each the site's 404 for an unknown address.
  const unknown = await answer(`${origin}/no-such-page`);
  expect(unknown.status).toBe(404);
  const store = openDb({ file: join(dir, "leads.db") });
  const expired = `${origin}/funnel/${signLink(await linkKey(store), Date.now() - 1_000)}`;
  await store.close();
  const [expires, mac] = link.split("/").pop()!.split(".") as [string, string];
  const forged = `${origin}/funnel/${Number(expires) + 86_400 * 30}.${mac}`;
  const otherCase = link.replace("/funnel/", "/Funnel/");
  for (const url of [expired, forged, `${origin}/funnel/${expires}`, otherCase]) expect(await answer(url), url).toEqual(unknown);
  const head = await fetch(link, { method: "HEAD" });
  expect([head.status, head.headers.get("cache-control"), await head.text()]).toEqual([200, "no-store", ""]);
  const page = await browser.newPage();
  await page.goto(`${origin}/no-such-page`);
  const notFound = await page.title();
  expect((await page.goto(expired))!.status()).toBe(404);
  await expect(page).toHaveTitle(notFound);
  await page.close();

  // Revoked: a new key in the store; each server takes it within a few seconds.
  expect((await leads("funnel-link", "--revoke-all")).stdout).toMatch(/^every funnel link given so far no longer opens/);
  await expect.poll(async () => (await fetch(link)).status, { timeout: 20_000 }).toBe(404);
  expect(await answer(link)).toEqual(unknown);
});

/**
 * An operator's first try: nginx with nothing but `proxy_pass` in front of the site, reached over
 * plain HTTP by a host name. A current Chromium sends no Sec-Fetch-Site there (Fetch Metadata goes
 * only to potentially trustworthy origins: https, localhost, 127.0.0.1), so only the Origin vouches
 * for its posts, and nginx has made Host the site's own address. The browser reaches nginx as
 * `site.test` (mapped to 127.0.0.1 by Chromium's host resolver rules). Two sites: one started with
 * SITE_ORIGIN naming that address; one with TRUST_PROXY=1, behind the plain block (refused, loudly)
 * and behind a block that adds X-Forwarded-Host and -Proto (accepted). Ports: opsPort(115-119).
 */
import { request } from "node:http";
import { test as base, expect, type Browser } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { startNginx } from "../support/proxies";
import { dataDir, events, serve, type Served } from "../support/server";
import { opsPort } from "../support/sites";
import { atStep5, calculator, dispatchApp } from "../support/wizard";

const NAME = "site.test";
const test = base.extend({
  launchOptions: [
    async ({ launchOptions }, use) => use({ ...launchOptions, args: [...(launchOptions.args ?? []), `--host-resolver-rules=MAP ${NAME} 127.0.0.1`] }),
    { scope: "worker" },
  ],
});
// One nginx and two sites for the whole file: its tests run in order, in one worker.
test.describe.configure({ mode: "default" });

const REFUSED = "Forms on this site can only be sent from this site.";
let named: Served; // SITE_ORIGIN=http://site.test:<its nginx port>
let trusting: Served; // TRUST_PROXY=1, metrics on opsPort(119)
/** Where the browser reaches each nginx block, by name. */
const through = { named: "", plain: "", forwarded: "" };
let stopNginx = async () => {};

test.beforeAll(async () => {
  const [namedUrl, trustingUrl] = [`http://127.0.0.1:${opsPort(115)}`, `http://127.0.0.1:${opsPort(116)}`];
  const nginx = await startNginx([
    (listen) => `server { listen ${listen}; location / { proxy_pass ${namedUrl}; } }`,
    (listen) => `server { listen ${listen}; location / { proxy_pass ${trustingUrl}; } }`,
    (listen) =>
      `server { listen ${listen}; location / { proxy_pass ${trustingUrl}; proxy_set_header X-Forwarded-Host $http_host; ` +
      `proxy_set_header X-Forwarded-Proto $scheme; proxy_set_header X-Forwarded-For $remote_addr; } }`,
  ]);
  stopNginx = nginx.stop;
  [through.named, through.plain, through.forwarded] = nginx.urls.map((url) => url.replace("127.0.0.1", NAME)) as [string, string, string];
  named = serve(opsPort(115), { SITE_ORIGIN: through.named, METRICS_PORT: String(opsPort(118)), DATA_DIR: dataDir() });
  trusting = serve(opsPort(116), { TRUST_PROXY: "1", METRICS_PORT: String(opsPort(119)), DATA_DIR: dataDir() });
  await Promise.all([named.listening, trusting.listening]);
});

test.afterAll(async () => {
  await stopNginx();
  named?.kill();
  trusting?.kill();
});

const refusedLookingSameSite = async (site: Served) => {
  const text = await (await fetch(`http://127.0.0.1:${site.port + 3}/metrics`)).text();
  return Number(/^form_posts_refused_total\{[^}]*looks="same-site"[^}]*\} (\d+)$/m.exec(text)?.[1]);
};

/**
 * A browser context on `baseURL` whose posts' statuses (beacons included) are kept, and
 * `premise()` to check that none carried Sec-Fetch-Site.
 */
async function visitor(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  const page = await context.newPage();
  const posts: number[] = [];
  const fetchSites: Promise<string | null>[] = [];
  page.on("response", (r) => {
    if (r.request().method() !== "POST") return;
    posts.push(r.status());
    fetchSites.push(r.request().headerValue("sec-fetch-site"));
  });
  const premise = async () => {
    expect(posts.length).toBeGreaterThan(0);
    expect(await Promise.all(fetchSites), "the premise: no Fetch Metadata on a plain http:// name").toEqual(posts.map(() => null));
  };
  return { context, page, posts, premise };
}

/** The calculator's request and a contact message, sent as a visitor does, each thanked. */
async function sendBothForms(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const { context, page, posts, premise } = await visitor(browser, baseURL, javaScriptEnabled);
  try {
    // Without JavaScript each step is a post of its own and a redirect.
    await atStep5(page, dispatchApp, { walk: true });
    const calc = calculator(page);
    await calc.getByLabel("Company name").fill("Plain Proxy Holdings");
    await calc.getByLabel("Email").fill("plain@example.co.za");
    await calc.getByLabel("Phone").fill("+27 11 555 0142");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);

    const form = page.locator("#contact");
    await form.getByLabel("Name").fill("Thandi Nkosi");
    await form.getByLabel("Email").fill("thandi@nkosi.co.za");
    await form.getByLabel("Service").selectOption("ai");
    await form.getByLabel("Message").fill("We would like a chat assistant.");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    expect(posts.filter((status) => status >= 400)).toEqual([]);
    await premise();
  } finally {
    await context.close();
  }
}

/**
 * The contact form, then the calculator's first post (with JavaScript, its send), each answered
 * 403; without JavaScript the visitor reads the site's refusal. Resolves with the count of posts
 * refused (the funnel's beacons among them).
 */
async function refusedBothForms(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const { context, page, posts, premise } = await visitor(browser, baseURL, javaScriptEnabled);
  const refused = async (send: () => Promise<void>) => {
    const answer = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/");
    await send();
    expect((await answer).status()).toBe(403);
    if (!javaScriptEnabled) await expect(page.getByText(REFUSED)).toBeVisible();
  };
  try {
    await page.goto("/");
    const form = page.locator("#contact");
    await form.getByLabel("Name").fill("Thandi Nkosi");
    await form.getByLabel("Email").fill("thandi@nkosi.co.za");
    await form.getByLabel("Service").selectOption("ai");
    await form.getByLabel("Message").fill("We would like a chat assistant.");
    await refused(() => form.getByRole("button", { name: "Send Message" }).click());

    await page.goto("/");
    const calc = calculator(page);
    if (javaScriptEnabled) {
      await atStep5(page, dispatchApp);
      await calc.getByLabel("Company name").fill("Plain Proxy Holdings");
      await calc.getByLabel("Email").fill("plain@example.co.za");
      await calc.getByLabel("Phone").fill("+27 11 555 0142");
      await refused(() => calc.getByRole("button", { name: "Send My Request" }).click());
    } else await refused(() => calc.getByRole("button", { name: dispatchApp.service, exact: true }).click());
    expect(posts.filter((status) => status !== 403)).toEqual([]);
    await premise();
    return posts.length;
  } finally {
    await context.close();
  }
}

test("with SITE_ORIGIN naming the address, a browser without Fetch Metadata sends both forms through a plain proxy_pass, with JavaScript and without", async ({
  browser,
}) => {
  await sendBothForms(browser, through.named, true);
  await sendBothForms(browser, through.named, false);
  expect(await refusedLookingSameSite(named)).toBe(0);
});

test("with TRUST_PROXY and nginx passing X-Forwarded-Host and -Proto, both forms go through, with JavaScript and without", async ({ browser }) => {
  await sendBothForms(browser, through.forwarded, true);
  await sendBothForms(browser, through.forwarded, false);
  expect(await refusedLookingSameSite(trusting)).toBe(0);
});

test("with neither, both forms are refused with 403, and never silently: an error line naming both hosts, and the alert's counter", async ({ browser }) => {
  const sameSite = () => events(trusting.stdout()).filter((e) => e.event === "post_refused_same_site");
  const [before, linesBefore] = [await refusedLookingSameSite(trusting), sameSite().length];
  const seen = (await refusedBothForms(browser, through.plain, true)) + (await refusedBothForms(browser, through.plain, false));
  // Every refusal seen is counted, and each counted one logged as an error (a beacon still in flight may add one to both).
  const counted = async () => {
    const refused = (await refusedLookingSameSite(trusting)) - before;
    return { allSeen: refused >= seen, eachLogged: refused === sameSite().length - linesBefore };
  };
  await expect.poll(counted).toEqual({ allSeen: true, eachLogged: true });
  expect(new Set(sameSite().map((e) => `${e.level} ${e.origin} ${e.host}`))).toEqual(
    new Set([`error ${new URL(through.plain).host} ${new URL(trusting.url).host}`]),
  );
});

test("a client that reaches the site without the proxy cannot pass as it by writing X-Forwarded-Host: it is not trusted", async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const body = "formName=newsletter&email=";
    request(`${named.url}/?index`, {
      method: "POST",
      headers: {
        Origin: "http://evil.test",
        "X-Forwarded-Host": "evil.test",
        "X-Forwarded-Proto": "http",
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": body.length,
      },
    })
      .on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0)))
      .on("error", reject)
      .end(body);
  });
  expect(status).toBe(403);
});

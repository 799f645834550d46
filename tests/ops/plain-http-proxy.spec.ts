/**
 * An operator's first try: nginx with nothing but `proxy_pass` in front of the site, reached over
 * plain HTTP by a host name. A current Chromium sends no Sec-Fetch-Site there (Fetch Metadata goes
 * only to potentially trustworthy origins: https, localhost, 127.0.0.1), so only the Origin vouches
 * for its posts, and nginx has made Host the site's own address. The browser reaches nginx as
 * `site.test` (mapped to 127.0.0.1 by Chromium's host resolver rules). Two sites: one started with
 * SITE_ORIGIN naming that address; one with TRUST_PROXY=1, behind the plain block (refused, loudly)
 * and behind a block that adds X-Forwarded-Host and -Proto (accepted). Ports: opsPort(115-116).
 * (A client that writes X-Forwarded-Host itself, past the proxy: server/form-posts.test.ts.)
 */
import { test as base, expect } from "@playwright/test";
import { freePort } from "../support/ports";
import { sendForms, startNginx } from "../support/proxies";
import { dataDir, events } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const NAME = "site.test";
const test = base.extend({
  launchOptions: [
    async ({ launchOptions }, use) => use({ ...launchOptions, args: [...(launchOptions.args ?? []), `--host-resolver-rules=MAP ${NAME} 127.0.0.1`] }),
    { scope: "worker" },
  ],
});
const { site, undo } = startedByEachTest();

test("through a plain proxy_pass, a browser without Fetch Metadata sends both forms, with JavaScript and without, to a site whose SITE_ORIGIN names the address, or that trusts the proxy's X-Forwarded-Host and -Proto; to one that has neither, each is refused with 403, never silently: an error line naming both hosts, and the alert's counter", async ({
  browser,
}) => {
  const [named, trusting] = [opsPort(115), opsPort(116)].map((port) => `http://127.0.0.1:${port}`) as [string, string];
  const nginx = await startNginx([
    (listen) => `server { listen ${listen}; location / { proxy_pass ${named}; } }`,
    (listen) => `server { listen ${listen}; location / { proxy_pass ${trusting}; } }`,
    (listen) =>
      `server { listen ${listen}; location / { proxy_pass ${trusting}; proxy_set_header X-Forwarded-Host $http_host; ` +
      `proxy_set_header X-Forwarded-Proto $scheme; proxy_set_header X-Forwarded-For $remote_addr; } }`,
  ]);
  undo(nginx.stop);
  /** Where the browser reaches each nginx block, by name. */
  const [toNamed, plain, forwarded] = nginx.urls.map((url) => url.replace("127.0.0.1", NAME)) as [string, string, string];
  const metrics = [await freePort(), await freePort()];
  const sites = [
    site(opsPort(115), { SITE_ORIGIN: toNamed, METRICS_PORT: String(metrics[0]), DATA_DIR: dataDir() }),
    site(opsPort(116), { TRUST_PROXY: "1", METRICS_PORT: String(metrics[1]), DATA_DIR: dataDir() }),
  ];
  await Promise.all(sites.map((s) => s.listening));
  const refusedLookingSameSite = async (n: number) => {
    const text = await (await fetch(`http://127.0.0.1:${metrics[n]}/metrics`)).text();
    return Number(/^form_posts_refused_total\{[^}]*looks="same-site"[^}]*\} (\d+)$/m.exec(text)?.[1]);
  };

  for (const through of [toNamed, forwarded]) {
    const posts = await sendForms(browser, through);
    expect(
      posts.filter(([status]) => status >= 400),
      through,
    ).toEqual([]);
    expect(posts.length, through).toBeGreaterThan(1);
    expect(
      posts.map(([, site]) => site),
      "the premise: no Fetch Metadata on a plain http:// name",
    ).toEqual(posts.map(() => null));
  }
  expect([await refusedLookingSameSite(0), await refusedLookingSameSite(1)]).toEqual([0, 0]);

  const refused = await sendForms(browser, plain, { refused: true });
  expect(
    refused.map(([status, site]) => [status, site]),
    "the funnel's beacons refused too",
  ).toEqual(refused.map(() => [403, null]));
  // Every refusal seen is counted, and each counted one logged as an error (a beacon still in flight may add one to both).
  const sameSite = () => events(sites[1]!.stdout()).filter((e) => e.event === "post_refused_same_site");
  const counted = async () => {
    const count = await refusedLookingSameSite(1);
    return { allSeen: count >= refused.length, eachLogged: count === sameSite().length };
  };
  await expect.poll(counted).toEqual({ allSeen: true, eachLogged: true });
  expect(new Set(sameSite().map((e) => `${e.level} ${e.origin} ${e.host}`))).toEqual(new Set([`error ${new URL(plain).host} ${new URL(trusting).host}`]));
});

/**
 * The site behind a reverse proxy. nginx with nothing but `proxy_pass`, reached over plain HTTP by
 * a host name (`site.test`, Chromium's host resolver rules): Chromium sends no Sec-Fetch-Site there
 * (only to https, localhost, 127.0.0.1), so only the Origin vouches for a post, and Host is the
 * site's own address: a site with SITE_ORIGIN, and one with TRUST_PROXY=1 behind the plain block
 * (refused, loudly) and one adding X-Forwarded-Host and -Proto. Then the shipped deploy/nginx.conf
 * and deploy/Caddyfile as written (tests/support/proxies.ts), on ports that are not 80, the same
 * cases for both: they differ in how each passes Host and X-Forwarded-For and handles a post to a
 * stopped or failing site. opsPort 115-116, 120-123.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test as base, expect } from "@playwright/test";
import { LIMITS } from "../../server/rate-limits";
import { freePort } from "../support/ports";
import { sendForms, startNginx, startShipped } from "../support/proxies";
import { dataDir, deliveredOnce, events, keyed, postContact, postForm, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const NAME = "site.test";
const test = base.extend({
  launchOptions: [
    async ({ launchOptions }, use) => use({ ...launchOptions, args: [...(launchOptions.args ?? []), `--host-resolver-rules=MAP ${NAME} 127.0.0.1`] }),
    { scope: "worker" },
  ],
});
const { fakeService, site, stop, undo } = startedByEachTest();

test("plain proxy_pass, no Fetch Metadata: both forms go with SITE_ORIGIN or X-Forwarded-Host; else 403, an error line and a count", async ({ browser }) => {
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
    const [failed, fetchSites] = [posts.filter(([status]) => status >= 400), posts.map(([, site]) => site)];
    expect([failed, posts.length > 1], through).toEqual([[], true]);
    expect(fetchSites, "the premise: no Fetch Metadata on a plain http:// name").toEqual(posts.map(() => null));
  }
  expect([await refusedLookingSameSite(0), await refusedLookingSameSite(1)]).toEqual([0, 0]);

  const refused = await sendForms(browser, plain, { refused: true });
  expect(refused, "the funnel's beacons refused too").toEqual(refused.map(() => [403, null]));
  // Every refusal seen is counted, and each counted one logged as an error (a beacon still in flight may add one to both).
  const sameSite = () => events(sites[1]!.stdout()).filter((e) => e.event === "post_refused_same_site");
  const counted = async () => {
    const count = await refusedLookingSameSite(1);
    return { allSeen: count >= refused.length, eachLogged: count === sameSite().length };
  };
  await expect.poll(counted).toEqual({ allSeen: true, eachLogged: true });
  expect(new Set(sameSite().map((e) => `${e.level} ${e.origin} ${e.host}`))).toEqual(new Set([`error ${new URL(plain).host} ${new URL(trusting).host}`]));
});

/** An empty newsletter form (answered 400) from `from` through `proxy`, vouched for by its Origin alone: its status. */
const smallPost = async (proxy: string, from: string, headers: Record<string, string> = {}) =>
  (await postForm(`${proxy}/?index`, { formName: "newsletter", email: "" }, { Origin: proxy, ...headers }, from)).status;

for (const [i, proxy] of (["nginx", "Caddy"] as const).entries()) {
  const file = proxy === "nginx" ? "deploy/nginx.conf" : "deploy/Caddyfile";
  /** The shipped file in front of `upstreams`, stopped after the test: its URL. */
  const shippedProxy = async (upstreams: string[]) => {
    const { url, stop } = await startShipped(proxy, upstreams);
    return (undo(stop), url);
  };

  test(`${proxy} with ${file}: forms go, a limit per visitor, no error; before two sites, one stopped or failing, each post taken once`, async ({
    browser,
  }) => {
    const fake = await fakeService();
    const metricsPort = await freePort();
    // Each site with its own data folder, as two containers' outboxes are their own.
    const sites = [opsPort(120 + 2 * i), opsPort(121 + 2 * i)].map((port, n) =>
      site(port, keyed(fake, dataDir(), { TRUST_PROXY: "1", ...(n === 0 && { METRICS_PORT: String(metricsPort) }) })),
    );
    await Promise.all(sites.map((s) => s.listening));
    const single = await shippedProxy([sites[0]!.url]);
    expect((await sendForms(browser, single)).filter(([status]) => status >= 400)).toEqual([]);
    const limited: number[] = [];
    for (let n = 0; n <= LIMITS.posts.points; n++) limited.push(await smallPost(single, "127.0.0.2", { "X-Forwarded-For": `198.51.100.${n}` }));
    expect(limited, "the visitor's posts, then one over its limit whatever it wrote").toEqual([...Array(LIMITS.posts.points).fill(400), 429]);
    expect(await smallPost(single, "127.0.0.3"), "another visitor is served").toBe(400);
    expect(events(sites[0]!.stdout()).filter((e) => e.level === "error")).toEqual([]);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^form_posts_refused_total\{[^}]*looks="same-site"[^}]*\} 0$/m);
    expect(metrics).toMatch(/^form_posts_client_unknown_total\{[^}]*\} 0$/m);

    // Each post from a loopback address of its own: a visitor's five leads are not what is tested.
    const from = (n: number) => `127.0.${10 + i}.${n + 1}`;
    const url = await shippedProxy(sites.map((s) => s.url));
    const tokens = Array.from({ length: 8 }, (_, n) => `two-sites-${proxy}-${n}`);
    const post = (n: number) => postContact(url, `Hello (${tokens[n]}).`, { localAddress: from(n) });
    for (const n of [0, 1]) expect((await post(n)).status).toBe(303);
    await deliveredOnce(fake, tokens.slice(0, 2), { settle: 0 });
    // A clean stop, as `docker stop` does: the proxy then meets a refused connection.
    await stop(sites[1]!);
    for (let n = 2; n < tokens.length; n++) {
      // nginx tries the other site; Caddy, keeping no copy of the body, answers 502 until its health check leaves it out.
      const statuses = [(await post(n)).status];
      while (proxy === "Caddy" && statuses.at(-1) === 502 && statuses.length < 20) {
        await sleep(500);
        statuses.push((await post(n)).status);
      }
      expect(statuses, tokens[n]).toEqual(proxy === "nginx" ? [303] : [...statuses.slice(0, -1).map(() => 502), 303]);
    }
    await deliveredOnce(fake, tokens, { settle: 0 });

    // A site that answers the proxy's look (GET /healthz) and reads a post, then drops the connection without an answer.
    const reached: string[] = [];
    const failing = createServer((req, res) => {
      if (req.method !== "POST") return void res.end("ok");
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => (reached.push(body), res.socket?.destroy()));
    });
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
    undo(() => (failing.close(), failing.closeAllConnections()));
    const failingUrl = await shippedProxy([`http://127.0.0.1:${(failing.address() as AddressInfo).port}`, sites[0]!.url]);
    // Posts until one reaches the failing site (nginx takes turns, Caddy picks at random), then two more.
    const [more, statuses]: [string[], number[]] = [[], []];
    for (let n = 0; n < 20 && (reached.length === 0 || more.length < statuses.indexOf(502) + 3); n++) {
      more.push(`failing-site-${proxy}-${n}`);
      statuses.push((await postContact(failingUrl, `Hello (${more[n]}).`, { localAddress: from(20 + n) })).status);
    }
    const lost = more.filter((token) => reached.some((body) => body.includes(token)));
    expect(lost.length, "a post reached the failing site").toBeGreaterThan(0);
    const told = lost.map((token) => statuses[more.indexOf(token)]);
    expect(told, "the visitor is told it failed").toEqual(lost.map(() => 502));
    // Each other post delivered once, and, in the 3 s in which a second send would come, none of the lost.
    const others = more.filter((token) => !lost.includes(token));
    await deliveredOnce(fake, others);
    for (const token of lost) expect(fake.received(token), "never sent to the other site").toEqual([]);
  });
}

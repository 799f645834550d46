/**
 * The site behind the real reverse proxies an operator puts in front of it, each started once for
 * this file, on loopback ports that are not 80 (so Host carries a port): nginx with
 * deploy/nginx.conf and Caddy with deploy/Caddyfile, each in front of a site of its own started
 * with TRUST_PROXY=1 (the browser always comes from 127.0.0.1, and a site takes five leads a
 * visitor in ten minutes); and nginx as operators first set it up, in front of a third such site:
 * a plain `proxy_pass` (Host rewritten to the site's address, no X-Forwarded-*), and one with only
 * `Host $host` (no port, no X-Forwarded-For). Visitors are a real browser (JavaScript on and off)
 * and clients from loopback addresses of their own (127.0.0.2, …). Then the same files with
 * their upstream of two sites, in front of two sites each (a stopped one, and one that fails a
 * post it was sent). Ports: opsPort(120-126) and opsPort(165-168).
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { LIMITS } from "../../server/rate-limits";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { shippedNginx, startCaddy, startNginx } from "../support/proxies";
import { dataDir, deliveredOnce, events, keyed, postContact, serve, type Served, sleep } from "../support/server";
import { atStep5, calculator, dispatchApp } from "../support/wizard";
import { opsPort } from "../support/sites";

// One of each proxy for the whole file: its tests run in order, in one worker.
test.describe.configure({ mode: "default" });

/** A site as these tests start it, with its metrics on a port of its own (`n` + 3). */
const site = (n: number) => serve(opsPort(n), { TRUST_PROXY: "1", METRICS_PORT: String(opsPort(n + 3)), DATA_DIR: dataDir() });
let sites: { nginx: Served; caddy: Served; misconfigured: Served };
const proxies: Record<"nginx" | "caddy" | "plain" | "hostOnly", string> = { nginx: "", caddy: "", plain: "", hostOnly: "" };
const stops: (() => Promise<void>)[] = [];

test.beforeAll(async () => {
  sites = { nginx: site(121), caddy: site(122), misconfigured: site(123) };
  await Promise.all(Object.values(sites).map((s) => s.listening));
  const nginx = await startNginx([
    shippedNginx([sites.nginx.url]),
    // nginx's default: Host becomes the upstream's address, nothing says who the visitor is.
    (listen) => `server { listen ${listen}; location / { proxy_pass ${sites.misconfigured.url}; } }`,
    // Half right: the visitor's host but without its port, and still no X-Forwarded-For.
    (listen) => `server { listen ${listen}; location / { proxy_pass ${sites.misconfigured.url}; proxy_set_header Host $host; } }`,
  ]);
  stops.push(nginx.stop);
  [proxies.nginx, proxies.plain, proxies.hostOnly] = nginx.urls as [string, string, string];
  const caddy = await startCaddy([sites.caddy.url]);
  stops.push(caddy.stop);
  proxies.caddy = caddy.url;
});

test.afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
  for (const s of Object.values(sites ?? {})) s.kill();
});

/** The calculator's request and a contact message, sent as a visitor does, each thanked. */
async function sendBothForms(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  try {
    const page = await context.newPage();
    const posts: number[] = [];
    page.on("response", (r) => r.request().method() === "POST" && posts.push(r.status()));
    // Each step through the proxy: a page of its own without JavaScript, a post and a redirect.
    await atStep5(page, dispatchApp, { walk: true });
    const calc = calculator(page);
    await calc.getByLabel("Company name").fill("Proxy Test Holdings");
    await calc.getByLabel("Email").fill("proxy@example.co.za");
    await calc.getByLabel("Phone").fill("+27 11 555 0199");
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);

    const form = page.locator("#contact");
    await form.getByLabel("Name").fill("Lerato Mokoena");
    await form.getByLabel("Email").fill("lerato@mokoena.co.za");
    await form.getByLabel("Service").selectOption("ai");
    await form.getByLabel("Message").fill("We would like a chat assistant.");
    await form.getByRole("button", { name: "Send Message" }).click();
    await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    expect(posts.filter((status) => status >= 400)).toEqual([]);
  } finally {
    await context.close();
  }
}

/**
 * A small post (an empty newsletter form, answered 400 by its action) from the loopback address
 * `from`, through `proxy`, with the headers of the browser it plays: `old` sends no Sec-Fetch-Site
 * (a browser before 2023), so only its Origin vouches for it. Resolves with the status.
 */
function smallPost(proxy: string, from: string, { old = false, headers = {} }: { old?: boolean; headers?: Record<string, string> } = {}) {
  const body = "formName=newsletter&email=";
  return new Promise<number>((resolve, reject) => {
    const fetchMetadata = old ? {} : { "Sec-Fetch-Site": "same-origin" };
    request(
      `${proxy}/?index`,
      {
        method: "POST",
        localAddress: from,
        headers: { Origin: proxy, ...fetchMetadata, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": body.length, ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    )
      .on("error", reject)
      .end(body);
  });
}

const metric = async (site: Served, name: string) => {
  const text = await (await fetch(`http://127.0.0.1:${site.port + 3}/metrics`)).text();
  // Its own labels among every series' container and store (server/metrics.ts).
  const [bare, own = "}"] = name.split("{");
  return Number(new RegExp(`^${bare}\\{[^}]*${own.slice(0, -1)}[^}]*\\} (\\d+)$`, "m").exec(text)?.[1]);
};
const errorsOf = (site: Served) => events(site.stdout()).filter((e) => e.level === "error");

for (const [name, proxy] of [
  ["nginx with deploy/nginx.conf", "nginx"],
  ["Caddy with deploy/Caddyfile", "caddy"],
] as const) {
  test(`through ${name}, a browser sends the calculator and the contact form, with JavaScript and without`, async ({ browser }) => {
    await sendBothForms(browser, proxies[proxy], true);
    await sendBothForms(browser, proxies[proxy], false);
  });

  test(`through ${name}, each visitor has a limit of its own, which its own X-Forwarded-For cannot escape; the Host keeps its port`, async () => {
    const [visitor, other] = proxy === "nginx" ? ["127.0.0.2", "127.0.0.3"] : ["127.0.0.4", "127.0.0.5"];
    // An old browser's posts: only the Origin, with the proxy's port, vouches for them.
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.posts.points; i++)
      statuses.push(await smallPost(proxies[proxy], visitor, { old: true, headers: { "X-Forwarded-For": `198.51.100.${i}` } }));
    expect(statuses.slice(0, -1)).toEqual(Array.from({ length: LIMITS.posts.points }, () => 400));
    expect(statuses.at(-1), "the visitor is over its limit whatever it wrote").toBe(429);
    expect(await smallPost(proxies[proxy], other, { old: true }), "another visitor is served").toBe(400);
  });
}

test("the sites behind the shipped configurations log no error and count no refused or unknown visitor", async () => {
  for (const s of [sites.nginx, sites.caddy]) {
    expect(errorsOf(s)).toEqual([]);
    expect(await metric(s, 'form_posts_refused_total{looks="same-site"}')).toBe(0);
    expect(await metric(s, "form_posts_client_unknown_total")).toBe(0);
  }
});

test("through nginx's plain proxy_pass (Host rewritten, no X-Forwarded-For) with TRUST_PROXY=1, a browser's forms go through, with JavaScript and without", async ({
  browser,
}) => {
  await sendBothForms(browser, proxies.plain, true);
  await sendBothForms(browser, proxies.plain, false);
});

test("through nginx with only `Host $host` (port dropped, no X-Forwarded-For), visitors do not share one bucket, and the site says so: an error line and a metric", async () => {
  const before = await metric(sites.misconfigured, "form_posts_client_unknown_total");
  const statuses: number[] = [];
  for (let i = 0; i <= LIMITS.posts.points; i++) statuses.push(await smallPost(proxies.hostOnly, "127.0.0.6"));
  expect(await smallPost(proxies.hostOnly, "127.0.0.7"), "another visitor").toBe(400);
  expect(statuses).not.toContain(429);
  expect(await metric(sites.misconfigured, "form_posts_client_unknown_total")).toBe(before + LIMITS.posts.points + 2);
  await expect.poll(() => errorsOf(sites.misconfigured)).toContainEqual(expect.objectContaining({ event: "proxy_client_unknown", header: "X-Forwarded-For" }));
});

test("through nginx's plain proxy_pass and `Host $host`, an old browser's post (no Sec-Fetch-Site) is refused, and never silently: an error line naming both hosts, and a metric", async () => {
  const before = await metric(sites.misconfigured, 'form_posts_refused_total{looks="same-site"}');
  expect(await smallPost(proxies.plain, "127.0.0.8", { old: true })).toBe(403);
  expect(await smallPost(proxies.hostOnly, "127.0.0.8", { old: true })).toBe(403);
  expect(await metric(sites.misconfigured, 'form_posts_refused_total{looks="same-site"}')).toBe(before + 2);
  // The log is read from the site's stdout, which may arrive just after the answer.
  const refused = () => errorsOf(sites.misconfigured).filter((e) => e.event === "post_refused_same_site");
  await expect
    .poll(() => refused().map((e) => [e.origin, e.host]))
    .toEqual([
      [new URL(proxies.plain).host, new URL(sites.misconfigured.url).host],
      [new URL(proxies.hostOnly).host, "127.0.0.1"],
    ]);
});

test("a site listening on loopback alone without TRUST_PROXY says at start that a proxy in front would count every visitor as one", async () => {
  const server = serve(opsPort(120), { DATA_DIR: dataDir() });
  try {
    await server.listening;
    expect(events(server.stdout()).filter((e) => e.event === "proxy_not_trusted")).toEqual([
      expect.objectContaining({ level: "warn", host: "127.0.0.1", variable: "TRUST_PROXY" }),
    ]);
  } finally {
    server.kill();
  }
});

/**
 * The shipped files' upstream of two sites, in front of two sites each, delivering to one fake
 * form service; each site with its own data folder, as two containers' outboxes are their own.
 */
test.describe("two sites behind each proxy", () => {
  let fake: FakeFormService;
  const pairs = { nginx: [] as Served[], caddy: [] as Served[] };
  const twoStops: (() => Promise<void>)[] = [];

  /** The shipped file in front of `upstreams`: its URL. */
  async function proxyFor(proxy: "nginx" | "caddy", upstreams: string[]) {
    const started =
      proxy === "nginx" ? await startNginx([shippedNginx(upstreams)]).then((n) => ({ url: n.urls[0]!, stop: n.stop })) : await startCaddy(upstreams);
    twoStops.push(started.stop);
    return started.url;
  }

  test.beforeAll(async () => {
    fake = await startFakeFormService();
    const site = (n: number) => serve(opsPort(n), keyed(fake, dataDir(), { TRUST_PROXY: "1" }));
    pairs.nginx = [site(165), site(166)];
    pairs.caddy = [site(167), site(168)];
    await Promise.all([...pairs.nginx, ...pairs.caddy].map((s) => s.listening));
  });
  test.afterAll(async () => {
    await Promise.all(twoStops.map((stop) => stop()));
    for (const s of [...pairs.nginx, ...pairs.caddy]) s.kill();
    await fake?.close();
  });

  for (const [i, proxy] of (["nginx", "caddy"] as const).entries()) {
    // Each post from a loopback address of its own: a visitor's five leads are not what is tested.
    const from = (n: number) => `127.0.${10 + i}.${n + 1}`;

    test(`through ${proxy}, with one of two sites stopped, every post is taken by the other, and each lead is delivered once`, async () => {
      const url = await proxyFor(
        proxy,
        pairs[proxy].map((s) => s.url),
      );
      const tokens = Array.from({ length: 8 }, (_, n) => `two-sites-${proxy}-${n}`);
      const post = (n: number) => postContact(url, `Hello (${tokens[n]}).`, { localAddress: from(n) });
      for (const n of [0, 1]) expect((await post(n)).status).toBe(303);
      await deliveredOnce(fake, tokens.slice(0, 2), { settle: 0 });
      // A clean stop, as `docker stop` does: the proxy then meets a refused connection.
      const stopped = pairs[proxy][1]!;
      stopped.child.kill("SIGTERM");
      await stopped.exited;
      for (let n = 2; n < tokens.length; n++) {
        // nginx tries a refused connection at the other site. Caddy, with no copy of the body
        // (deploy/Caddyfile says why), answers 502 until its health check leaves the stopped site
        // out: the visitor sends again, as the page lets them, and it is still one lead.
        const statuses = [(await post(n)).status];
        while (proxy === "caddy" && statuses.at(-1) === 502 && statuses.length < 20) {
          await sleep(500);
          statuses.push((await post(n)).status);
        }
        expect(statuses, tokens[n]).toEqual([...statuses.slice(0, -1).map(() => 502), 303]);
        if (proxy === "nginx") expect(statuses, tokens[n]).toEqual([303]);
      }
      await deliveredOnce(fake, tokens);
    });

    test(`through ${proxy}, a post sent to a site that fails before answering is not sent to the other site`, async () => {
      // A site that answers the proxy's first look (GET /healthz), and reads a post, then drops the
      // connection without an answer.
      const reached: string[] = [];
      const failing = createServer((req, res) => {
        if (req.method !== "POST") return void res.end("ok");
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString()));
        req.on("end", () => (reached.push(body), res.socket?.destroy()));
      });
      await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
      try {
        const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
        const url = await proxyFor(proxy, [failingUrl, pairs[proxy][0]!.url]);
        // Posts until one reaches the failing site (nginx takes turns and then leaves it out for
        // 10 s; Caddy picks at random), then two more.
        const tokens: string[] = [];
        const statuses: number[] = [];
        for (let n = 0; n < 20 && (reached.length === 0 || tokens.length < statuses.indexOf(502) + 3); n++) {
          tokens.push(`failing-site-${proxy}-${n}`);
          statuses.push((await postContact(url, `Hello (${tokens[n]}).`, { localAddress: from(20 + n) })).status);
        }
        const lost = tokens.filter((token) => reached.some((body) => body.includes(token)));
        expect(lost.length, "a post reached the failing site").toBeGreaterThan(0);
        expect(
          lost.map((token) => statuses[tokens.indexOf(token)]),
          "the visitor is told it failed",
        ).toEqual(lost.map(() => 502));
        await deliveredOnce(
          fake,
          tokens.filter((token) => !lost.includes(token)),
        );
        for (const token of lost) expect(fake.received(token), "never sent to the other site").toEqual([]);
      } finally {
        failing.close();
      }
    });
  }
});

import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import proxyAddr from "proxy-addr";
import { describe, expect, it, onTestFinished } from "vitest";
import { quietLog } from "../tests/support/quiet-log";
import { openDb } from "./db";
import { type Batched, lastDays, NEW_SOURCES_A_CLIENT, openFunnel } from "./funnel";
import { countLandings, LANDINGS_A_CLIENT } from "./landings";

const PHONE = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const settings = { names: new Set(["spring"]), sites: ["example.co.za"], ownHosts: ["kopano.example"] };

type Sent = { method?: string; status?: number; from?: string };
/** Landings counted into `funnel` (by default one that keeps each batch), and a way to send them requests as the server gets them. */
function landingsInto(funnel?: ReturnType<typeof openFunnel>, trust: (address: string, hop: number) => boolean = () => false) {
  const batches: Batched[] = [];
  const landings = countLandings({
    pagePaths: ["/", "/services", "/estimate"],
    settings,
    trust,
    addressCode: (client) => `code of ${client}`,
    funnel: funnel ?? { addBatch: async (batch) => (batches.push(...batch), []) },
    log: quietLog,
    flushMs: 60_000,
  });
  onTestFinished(() => landings.close());
  /** A request to the site, answered `status` (200 by default). */
  function request(url: string, headers: Record<string, string> = {}, { method = "GET", status = 200, from = "127.0.0.2" }: Sent = {}) {
    const req = { method, url, headers: { host: "127.0.0.1:3000", "user-agent": PHONE, ...headers }, socket: { remoteAddress: from } };
    const res = Object.assign(new EventEmitter(), { statusCode: status });
    landings.count(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    res.emit("finish");
  }
  /** What the batches written so far counted, by "source device". */
  async function counted() {
    await landings.flush();
    const sums: Record<string, number> = {};
    for (const { hit, n } of batches) sums[`${hit.source} ${hit.device}`] = (sums[`${hit.source} ${hit.device}`] ?? 0) + n;
    return sums;
  }
  return { landings, request, counted, batches };
}

describe("a landing", () => {
  it("is a page's GET from another site, with campaign tags or an ad click, or with no Referer (direct), under the source the funnel's rule gives it", async () => {
    const { request, counted } = landingsInto();
    request("/services", { referer: "https://www.linkedin.com/" });
    request("/", { referer: "https://www.google.co.za/" }, { from: "127.0.0.3" });
    request("/?utm_source=newsletter&utm_medium=email&utm_campaign=spring", { referer: "https://mail.example.net/" }, { from: "127.0.0.4" });
    request("/?gclid=abc", {}, { from: "127.0.0.5" });
    request("/services?utm_source=newsletter", { referer: "http://127.0.0.1:3000/" }, { from: "127.0.0.6" }); // tags on a link of our own
    request("/", { referer: "https://shop.example.co.za/blog", "user-agent": DESKTOP }, { from: "127.0.0.7" });
    request("/estimate?service=softwareDev&timeframe=urgent&complexity=complex", { referer: "https://elsewhere.example/" }, { from: "127.0.0.8" });
    request("/", {}, { from: "127.0.0.9" });
    expect(await counted()).toEqual({
      "social:linkedin phone": 1,
      "search:google phone": 1,
      "newsletter/email/spring phone": 1,
      "google/cpc phone": 1,
      "newsletter phone": 1,
      "site:example.co.za desktop": 1,
      "link phone": 1,
      "direct phone": 1,
    });
  });

  it("is not: a page of the site's own (its Host, a trusted proxy's, SITE_ORIGIN's; the browser's Sec-Fetch-Site without a Referer), a bot, no user agent, a prefetch or prerender, a fetch that is no document, HEAD, an asset, Remix's data, a 404", async () => {
    const { request, counted } = landingsInto(undefined, proxyAddr.compile("loopback"));
    request("/services", { referer: "http://127.0.0.1:3000/" });
    request("/services", { referer: "https://www.kopano.example/about" });
    request("/services", { referer: "https://proxied.example/", "x-forwarded-host": "proxied.example" });
    request("/", { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" });
    request("/", { "user-agent": "" });
    for (const [name, value] of [
      ["sec-purpose", "prefetch;prerender"],
      ["sec-purpose", "prefetch"],
      ["purpose", "prefetch"],
      ["x-purpose", "preview"],
      ["x-moz", "prefetch"],
      ["sec-fetch-dest", "iframe"],
      ["sec-fetch-dest", "empty"],
    ])
      request("/", { [name!]: value!, referer: "https://www.linkedin.com/" });
    request("/", {}, { method: "HEAD" });
    request("/favicon.ico", { referer: "https://www.linkedin.com/" });
    request("/build/root.js", {});
    request("/?_data=root", { referer: "https://www.linkedin.com/" });
    request("/estimate?service=nothing", { referer: "https://www.linkedin.com/" }, { status: 404 });
    request("/nowhere", {}, { status: 404 });
    request("/about", { "sec-fetch-site": "same-origin" }); // a page of ours whose Referer a policy dropped
    request("/", { "sec-fetch-dest": "document", referer: "https://www.linkedin.com/" }); // the one that counts
    expect(await counted()).toEqual({ "social:linkedin phone": 1 });
  });

  it("counts again on a reload with the same Referer, answered 200 or 304", async () => {
    const { request, counted } = landingsInto();
    request("/", { referer: "https://www.linkedin.com/" });
    request("/", { referer: "https://www.linkedin.com/" }, { status: 304 });
    expect(await counted()).toEqual({ "social:linkedin phone": 2 });
  });

  it(`one address code adds ${LANDINGS_A_CLIENT} a day, whatever their sources; another address still counts`, async () => {
    const { request, counted, batches } = landingsInto();
    for (let i = 0; i < LANDINGS_A_CLIENT + 15; i++) request("/", { referer: i % 2 ? "https://www.linkedin.com/" : "https://www.bing.com/" });
    request("/", { referer: "https://www.linkedin.com/" }, { from: "127.0.0.3" });
    expect(await counted()).toEqual({ "social:linkedin phone": LANDINGS_A_CLIENT / 2 + 1, "search:bing phone": LANDINGS_A_CLIENT / 2 });
    expect(new Set(batches.map((b) => b.client))).toEqual(new Set(["code of ip:127.0.0.2", "code of ip:127.0.0.3"]));
  });

  it("is told apart by the address Express would give: a trusted proxy's X-Forwarded-For, else the socket's", async () => {
    const behind = landingsInto(undefined, proxyAddr.compile("loopback"));
    for (let i = 0; i < LANDINGS_A_CLIENT + 1; i++) behind.request("/", { "x-forwarded-for": `203.0.113.${i}` });
    expect(await behind.counted()).toEqual({ "direct phone": LANDINGS_A_CLIENT + 1 });
    const untrusted = landingsInto();
    for (let i = 0; i < LANDINGS_A_CLIENT + 1; i++) untrusted.request("/", { "x-forwarded-for": `203.0.113.${i}` });
    expect(await untrusted.counted()).toEqual({ "direct phone": LANDINGS_A_CLIENT });
  });
});

describe("written in batches", () => {
  const sqliteFunnel = async () => {
    const db = openDb({ file: join(await mkdtemp(join(tmpdir(), "landings-")), "funnel.db") }, { synchronous: "NORMAL" });
    onTestFinished(() => db.close());
    return { db, funnel: openFunnel({ db, log: quietLog, settings }) };
  };
  const today = async (funnel: ReturnType<typeof openFunnel>) => (await funnel.read(lastDays(1)))[0]!;

  it('into the funnel\'s counts as "landed", by source and device, with the rule of new sources an address adds a day', async () => {
    const { funnel } = await sqliteFunnel();
    const { request, landings } = landingsInto(funnel);
    const engines = ["google.com", "bing.com", "yahoo.com", "duckduckgo.com", "ecosia.org"];
    for (const engine of engines) request("/", { referer: `https://www.${engine}/` });
    request("/", { referer: "https://duckduckgo.com/" }, { from: "127.0.0.3" });
    await landings.flush();
    const day = await today(funnel);
    expect(day).toMatchObject({ landed: 6, reached: { 2: 0 }, byDevice: { phone: { landed: 6 } } });
    expect(Object.fromEntries(Object.entries(day.bySource).map(([key, steps]) => [key, steps.landed]))).toEqual({
      "search:google": 1,
      "search:bing": 1,
      "search:yahoo": 1,
      other: engines.length - NEW_SOURCES_A_CLIENT,
      "search:duckduckgo": 1, // another address's new source keeps its name
    });
  });

  it("every few seconds by themselves, and what is left at the stop", async () => {
    const { funnel } = await sqliteFunnel();
    const landings = countLandings({ pagePaths: ["/"], settings, trust: () => false, addressCode: String, funnel, log: quietLog, flushMs: 50 });
    const land = () => {
      const req = { method: "GET", url: "/", headers: { host: "h", "user-agent": PHONE }, socket: { remoteAddress: "127.0.0.2" } };
      const res = Object.assign(new EventEmitter(), { statusCode: 200 });
      landings.count(req as unknown as IncomingMessage, res as unknown as ServerResponse);
      res.emit("finish");
    };
    land();
    await expect.poll(async () => (await today(funnel)).landed).toBe(1);
    land();
    await landings.close();
    expect((await today(funnel)).landed).toBe(2);
  });

  it("what a batch could not write waits for the next, summed with what came since", async () => {
    const written: Batched[] = [];
    let refusing = true;
    const funnel = { addBatch: async (batch: Iterable<Batched>) => (refusing ? [...batch] : (written.push(...batch), [])) };
    const { request, landings } = landingsInto(funnel as unknown as ReturnType<typeof openFunnel>);
    request("/", { referer: "https://www.linkedin.com/" });
    await landings.flush(); // the database down: nothing written, nothing lost
    request("/services", { referer: "https://www.linkedin.com/" });
    refusing = false;
    await landings.flush();
    expect(written.map(({ hit, n }) => [hit.source, n])).toEqual([["social:linkedin", 2]]);
  });

  it("never throws at a page or at the stop when the database fails", async () => {
    const { db, funnel } = await sqliteFunnel();
    const { request, landings } = landingsInto(funnel);
    await db.close();
    request("/", { referer: "https://www.linkedin.com/" });
    await expect(landings.close()).resolves.toBeUndefined();
  });
});

import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messages } from "~/content/messages";
import { formPosts, MAX_FORM_BYTES } from "./form-posts";
import { createLogger } from "./log";
import { createRateLimits, LIMITS } from "./rate-limits";
import { rejectMalformed } from "./reject-malformed";

/**
 * The middleware in a real Express app, with SITE_ORIGIN naming SITE_ORIGINS; the handler after
 * it echoes what an action would get. Its log lines and its metric events are kept for the tests to read.
 */
const SITE_ORIGINS = ["https://www.kopano.example", "http://site.test:8080"];
let url = "";
/** The same without TRUST_PROXY, behind the server's own rejectMalformed: a client that talks to the site directly. */
let direct = "";
let close = () => {};
const logged: Record<string, unknown>[] = [];
const counted: string[] = [];
beforeAll(async () => {
  const log = createLogger({ write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  const events = { refused: (looks: string) => void counted.push(`refused ${looks}`), clientUnknown: () => void counted.push("client unknown") };
  const listen = async (trust: number | false) => {
    const app = express().set("trust proxy", trust);
    app.use(rejectMalformed(app.get("trust proxy fn")));
    app.post(
      "*",
      formPosts({ limits: createRateLimits(undefined, log), log, events, siteOrigins: SITE_ORIGINS }),
      (_req, res) => void res.json(res.locals.form),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  // Trusting one hop, each test can be its own client through X-Forwarded-For.
  const [proxied, untrusted] = [await listen(1), await listen(false)];
  [url, direct] = [proxied.url, untrusted.url];
  close = () => (proxied.server.close(), untrusted.server.close());
});
afterAll(() => close());

let clients = 0;
/** A post from a client of its own; a header given as null is not sent (X-Forwarded-For: a proxy that names no client). */
const post = (body: BodyInit, headers: Record<string, string | null> = {}, path = "/?index", site = url) =>
  fetch(`${site}${path}`, {
    method: "POST",
    body,
    headers: Object.fromEntries(
      Object.entries({ "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": `203.0.113.${++clients}`, ...headers }).filter(
        (entry): entry is [string, string] => entry[1] !== null,
      ),
    ),
    redirect: "manual",
  });
const host = () => new URL(url).host;
/** What the log and the metrics got from `run`. */
async function watch(run: () => Promise<unknown>) {
  const [lines, events] = [logged.length, counted.length];
  await run();
  return { lines: logged.slice(lines), events: counted.slice(events) };
}

describe("formPosts: the cross-site check", () => {
  it.each([
    [{ "Sec-Fetch-Site": "cross-site" }],
    [{ "Sec-Fetch-Site": "same-site" }],
    [{ Origin: "https://evil.example" }],
    [{ Origin: "null" }],
    [{ Origin: "not a url" }],
    [{ Referer: "https://evil.example/page" }],
    // The browser's word goes first: a cross-site post stays one whatever its Origin says.
    [{ "Sec-Fetch-Site": "cross-site", Origin: "http://HOST" }],
    [{ "Sec-Fetch-Site": "same-site", Origin: "http://HOST" }],
  ])("refuses %j with 403 before reading the body", async (headers) => {
    const response = await post("name=Eve", JSON.parse(JSON.stringify(headers).replace("HOST", host())) as Record<string, string>);
    expect(response.status).toBe(403);
    expect(await response.text()).toBe("Forms on this site can only be sent from this site.");
  });

  it.each([[{ "Sec-Fetch-Site": "same-origin" }], [{ "Sec-Fetch-Site": "none" }], [{}]])("lets %j through", async (headers) => {
    expect((await post("name=Ann", headers)).status).toBe(200);
  });

  it("accepts an Origin or Referer naming this very host", async () => {
    expect((await post("name=Ann", { Origin: `http://${host()}` })).status).toBe(200);
    expect((await post("name=Ann", { Referer: `http://${host()}/?service=seo` })).status).toBe(200);
  });

  // What a browser sends through a proxy that rewrites Host (nginx's plain proxy_pass) or drops
  // its port ($host): Fetch Metadata says same-origin, and the Origin names the proxy's host.
  it.each([["https://kopano.example"], ["http://127.0.0.1:8443"], ["null"]])(
    "lets a post the browser calls same-origin through whatever its Origin (%s) says of the host",
    async (origin) => {
      expect((await post("name=Ann", { "Sec-Fetch-Site": "same-origin", Origin: origin })).status).toBe(200);
      expect((await post("name=Ann", { "Sec-Fetch-Site": "none", Origin: origin })).status).toBe(200);
    },
  );

  it("compares the Origin with X-Forwarded-Host when a trusted proxy sends one, else with Host", async () => {
    expect((await post("name=Ann", { Origin: "https://kopano.example", "X-Forwarded-Host": "kopano.example" })).status).toBe(200);
    expect((await post("name=Ann", { Origin: "https://kopano.example:8443", "X-Forwarded-Host": "kopano.example" })).status).toBe(403);
  });

  it("compares the Origin's scheme too when a trusted proxy names it (X-Forwarded-Proto)", async () => {
    const forwarded = { "X-Forwarded-Host": "kopano.example", "X-Forwarded-Proto": "https" };
    expect((await post("name=Ann", { Origin: "https://kopano.example", ...forwarded })).status).toBe(200);
    expect((await post("name=Ann", { Origin: "http://kopano.example", ...forwarded })).status).toBe(403);
    expect((await post("name=Ann", { Origin: `https://${host()}`, "X-Forwarded-Proto": "https" })).status).toBe(200);
    expect((await post("name=Ann", { Origin: `http://${host()}`, "X-Forwarded-Proto": "https" })).status).toBe(403);
  });

  // A current browser on a plain http:// name sends no Fetch Metadata, and a plain proxy_pass makes Host the site's address.
  it("accepts an Origin (or a Referer) that SITE_ORIGIN names, whatever the Host; only the exact origin", async () => {
    for (const origin of SITE_ORIGINS) {
      expect((await post("name=Ann", { Origin: origin })).status).toBe(200);
      expect((await post("name=Ann", { Referer: `${origin}/contact?sent=1` })).status).toBe(200);
    }
    for (const origin of [
      "http://www.kopano.example",
      "https://www.kopano.example:8443",
      "https://kopano.example",
      "http://site.test",
      "https://site.test:8080",
    ])
      expect((await post("name=Ann", { Origin: origin })).status, origin).toBe(403);
    // The browser's word still goes first.
    expect((await post("name=Ann", { "Sec-Fetch-Site": "cross-site", Origin: SITE_ORIGINS[0]! })).status).toBe(403);
  });

  it("ignores X-Forwarded-Host and -Proto from a client that is not a trusted proxy: it cannot name its own host", async () => {
    const own = { Origin: "https://kopano.example", "X-Forwarded-Host": "kopano.example", "X-Forwarded-Proto": "https" };
    expect((await post("name=Eve", own, "/?index", direct)).status).toBe(403);
    expect((await post("name=Ann", { Origin: `http://${new URL(direct).host}` }, "/?index", direct)).status).toBe(200);
    expect((await post("name=Ann", { Origin: SITE_ORIGINS[1]! }, "/?index", direct)).status).toBe(200);
  });
});

describe("formPosts: a refusal is never silent", () => {
  it("logs a post the browser called cross-site as a warning, and counts it as cross-site", async () => {
    const { lines, events } = await watch(() => post("name=Eve", { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }));
    expect(lines).toEqual([expect.objectContaining({ level: "warn", event: "post_refused", status: 403, reason: "cross-site" })]);
    expect(events).toEqual(["refused cross-site"]);
  });

  it("logs a post without Fetch Metadata whose Origin names another host as an error, with both hosts, and counts it as looking same-site", async () => {
    // A browser without Fetch Metadata (Safari before 16.4) behind a proxy that rewrote Host looks exactly like this.
    const { lines, events } = await watch(() => post("name=Ann", { Origin: "https://kopano.example" }));
    expect(lines).toEqual([
      expect.objectContaining({ level: "error", event: "post_refused_same_site", status: 403, origin: "kopano.example", host: host(), path: "/" }),
    ]);
    expect(events).toEqual(["refused same-site"]);
  });

  it("logs a refused Origin on a host SITE_ORIGIN names, in another scheme, as an error looking same-site", async () => {
    const { lines, events } = await watch(() => post("name=Ann", { Origin: "http://www.kopano.example" }));
    expect(lines).toEqual([expect.objectContaining({ level: "error", event: "post_refused_same_site", origin: "www.kopano.example", host: host() })]);
    expect(events).toEqual(["refused same-site"]);
  });
});

describe("formPosts: a trusted proxy that names no client", () => {
  it("counts each such post as a client of its own, never all visitors as one, and says so at error level (once a minute) and in the metrics", async () => {
    const { lines, events } = await watch(async () => {
      for (let i = 0; i <= LIMITS.posts.points; i++) expect((await post("a=1", { "X-Forwarded-For": null })).status).toBe(200);
    });
    expect(lines).toEqual([expect.objectContaining({ level: "error", event: "proxy_client_unknown", header: "X-Forwarded-For" })]);
    expect(events).toEqual(Array.from({ length: LIMITS.posts.points + 1 }, () => "client unknown"));
    const first = (await (await post("a=1", { "X-Forwarded-For": null })).json()) as { client: string };
    const second = (await (await post("a=1", { "X-Forwarded-For": null })).json()) as { client: string };
    expect(first.client).toMatch(/^unknown:/);
    expect(second.client).not.toBe(first.client);
  });
});

describe("formPosts: the body", () => {
  it("hands the fields to the action, with the honeypot's verdict and the client", async () => {
    const response = await post("formName=contact&name=Ann+Lee&website=", { "X-Forwarded-For": "2001:db8:7:8::1" });
    expect(await response.json()).toEqual({ fields: { formName: "contact", name: "Ann Lee", website: "" }, bot: false, client: "ip6:2001:db8:7:8::/64" });
    expect(((await (await post("name=Bot&website=http%3A%2F%2Fspam")).json()) as { bot: boolean }).bot).toBe(true);
  });

  it("removes invisible code points from every field before any action sees it", async () => {
    const body = new URLSearchParams({ name: "Ann\u200b Lee\u{e0041}", message: "Hi\u00ad\nthere\u202e" }).toString();
    expect(((await (await post(body)).json()) as { fields: unknown }).fields).toEqual({ name: "Ann Lee", message: "Hi\nthere" });
  });

  it("reads a form's line breaks (CRLF, as a browser posts them, or CR) as LF", async () => {
    const body = new URLSearchParams({ message: "one\r\ntwo\rthree\nfour" }).toString();
    expect(((await (await post(body)).json()) as { fields: unknown }).fields).toEqual({ message: "one\ntwo\nthree\nfour" });
  });

  it("refuses what is not a urlencoded form with 415", async () => {
    expect((await post(JSON.stringify({ name: "x" }), { "Content-Type": "application/json" })).status).toBe(415);
    expect((await post("--x\r\n", { "Content-Type": "multipart/form-data; boundary=x" })).status).toBe(415);
  });

  it("refuses a body over 64 KB with 413 and closes the connection", async () => {
    const response = await post(`message=${"x".repeat(MAX_FORM_BYTES)}`);
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
  });

  it("refuses an oversized body sent without a length as soon as it passes the cap", async () => {
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        sent += 16_384;
        if (sent > 10_000_000) return controller.close();
        controller.enqueue(new TextEncoder().encode("x".repeat(16_384)));
      },
    });
    const response = await post(stream, {}, "/?index").catch(() => undefined);
    if (response) expect(response.status).toBe(413);
    expect(sent).toBeLessThan(10_000_000);
  });
});

describe("formPosts: the post limit", () => {
  it("answers 429 with Retry-After and the visitor's words once a client passes the limit", async () => {
    const client = { "X-Forwarded-For": "198.51.100.9" };
    for (let i = 0; i < LIMITS.posts.points; i++) expect((await post("a=1", client)).status).toBe(200);
    const over = await post("a=1", client);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await over.text()).toBe(messages.rateLimited);
    // Remix's browser code shows a refusal marked like this in the page's error boundary.
    expect((await post("a=1", client, "/?index&_data=routes%2F_index")).headers.get("x-remix-catch")).toBe("yes");
  });
});

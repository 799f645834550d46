import { once } from "node:events";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formPosts, MAX_FORM_BYTES } from "./form-posts";
import { createLogger } from "./log";
import { createRateLimits, LIMITS } from "./rate-limits";
import { rejectMalformed } from "./reject-malformed";
import { FUNNEL_PATH } from "~/funnel/visit";

/** The middleware in a real Express app (SITE_ORIGIN: SITE_ORIGINS), then what an action would get; its log lines and metric events kept. */
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
    await once(server, "listening");
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
const status = async (headers: Record<string, string | null>, site = url) => (await post("name=Ann", headers, "/?index", site)).status;
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
    expect([response.status, await response.text()]).toEqual([403, "Forms on this site can only be sent from this site."]);
  });

  it("lets through what the browser calls same-origin or the visitor's own (none), whatever its Origin says of the host, and a client that says nothing", async () => {
    // What a browser sends through a proxy that rewrites Host (nginx's plain proxy_pass) or drops its port ($host).
    for (const origin of ["https://kopano.example", "http://127.0.0.1:8443", "null"])
      for (const site of ["same-origin", "none"]) expect(await status({ "Sec-Fetch-Site": site, Origin: origin }), `${site} ${origin}`).toBe(200);
    expect(await status({})).toBe(200);
  });

  it("without Fetch Metadata, takes an Origin or Referer naming this very host, or X-Forwarded-Host and -Proto when a trusted proxy sends them", async () => {
    expect([await status({ Origin: `http://${host()}` }), await status({ Referer: `http://${host()}/?service=seo` })]).toEqual([200, 200]);
    const forwarded = { "X-Forwarded-Host": "kopano.example", "X-Forwarded-Proto": "https" };
    expect(await status({ Origin: "https://kopano.example", "X-Forwarded-Host": "kopano.example" })).toBe(200);
    expect(await status({ Origin: "https://kopano.example:8443", "X-Forwarded-Host": "kopano.example" })).toBe(403);
    expect(await status({ Origin: "https://kopano.example", ...forwarded })).toBe(200);
    expect(await status({ Origin: "http://kopano.example", ...forwarded })).toBe(403);
    expect(await status({ Origin: `https://${host()}`, "X-Forwarded-Proto": "https" })).toBe(200);
    expect(await status({ Origin: `http://${host()}`, "X-Forwarded-Proto": "https" })).toBe(403);
  });

  // A current browser on a plain http:// name sends no Fetch Metadata, and a plain proxy_pass makes Host the site's address.
  it("accepts an Origin (or a Referer) that SITE_ORIGIN names, whatever the Host; only the exact origin", async () => {
    for (const origin of SITE_ORIGINS) expect([await status({ Origin: origin }), await status({ Referer: `${origin}/contact?sent=1` })]).toEqual([200, 200]);
    for (const origin of [
      "http://www.kopano.example",
      "https://www.kopano.example:8443",
      "https://kopano.example",
      "http://site.test",
      "https://site.test:8080",
    ])
      expect(await status({ Origin: origin }), origin).toBe(403);
    // The browser's word still goes first.
    expect(await status({ "Sec-Fetch-Site": "cross-site", Origin: SITE_ORIGINS[0]! })).toBe(403);
  });

  it("ignores X-Forwarded-Host and -Proto from a client that is not a trusted proxy: it cannot name its own host", async () => {
    expect(await status({ Origin: "https://kopano.example", "X-Forwarded-Host": "kopano.example", "X-Forwarded-Proto": "https" }, direct)).toBe(403);
    expect(await status({ Origin: `http://${new URL(direct).host}` }, direct)).toBe(200);
    expect(await status({ Origin: SITE_ORIGINS[1]! }, direct)).toBe(200);
  });
});

describe("formPosts: a refusal is never silent", () => {
  it("a post the browser called cross-site: a warning, counted as cross-site", async () => {
    const { lines, events } = await watch(() => post("name=Eve", { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }));
    expect(lines).toEqual([expect.objectContaining({ level: "warn", event: "post_refused", status: 403, reason: "cross-site" })]);
    expect(events).toEqual(["refused cross-site"]);
  });

  it("without Fetch Metadata, an Origin naming another host (or SITE_ORIGIN's host in another scheme): an error with both hosts, counted as looking same-site", async () => {
    // A browser without Fetch Metadata (Safari before 16.4) behind a proxy that rewrote Host looks exactly like this.
    const { lines, events } = await watch(async () => {
      for (const Origin of ["https://kopano.example", "http://www.kopano.example"]) await post("name=Ann", { Origin });
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: "error", event: "post_refused_same_site", status: 403, origin: "kopano.example", host: host(), path: "/" }),
      expect.objectContaining({ level: "error", event: "post_refused_same_site", origin: "www.kopano.example", host: host() }),
    ]);
    expect(events).toEqual(["refused same-site", "refused same-site"]);
  });
});

it("a trusted proxy that names no client: each such post is a client of its own, never all visitors as one, said at error level (once a minute) and in the metrics", async () => {
  const { lines, events } = await watch(async () => {
    for (let i = 0; i <= LIMITS.posts.points; i++) expect(await status({ "X-Forwarded-For": null })).toBe(200);
  });
  expect(lines).toEqual([expect.objectContaining({ level: "error", event: "proxy_client_unknown", header: "X-Forwarded-For" })]);
  expect(events).toEqual(Array.from({ length: LIMITS.posts.points + 1 }, () => "client unknown"));
  const [first, second] = [await post("a=1", { "X-Forwarded-For": null }), await post("a=1", { "X-Forwarded-For": null })];
  const clients = [((await first.json()) as { client: string }).client, ((await second.json()) as { client: string }).client];
  expect(clients[0]).toMatch(/^unknown:/);
  expect(clients[1]).not.toBe(clients[0]);
});

it("a client's beacons past the funnel's limit are refused, never counted; its forms still go", async () => {
  const client = { "X-Forwarded-For": "198.51.100.120" };
  for (let i = 0; i < LIMITS.funnel.points; i++) expect((await post("event=2", client, FUNNEL_PATH)).status).toBe(200);
  expect((await post("event=2", client, FUNNEL_PATH)).status).toBe(429);
  expect(await status(client)).toBe(200);
});

describe("formPosts: the body", () => {
  const fields = async (body: string) => ((await (await post(body)).json()) as { fields: unknown }).fields;

  it("hands the fields to the action, with the honeypot's verdict and the client", async () => {
    const response = await post("formName=contact&name=Ann+Lee&website=", { "X-Forwarded-For": "2001:db8:7:8::1" });
    expect(await response.json()).toEqual({ fields: { formName: "contact", name: "Ann Lee", website: "" }, bot: false, client: "ip6:2001:db8:7:8::/64" });
    expect(((await (await post("name=Bot&website=http%3A%2F%2Fspam")).json()) as { bot: boolean }).bot).toBe(true);
  });

  it("removes invisible code points from every field, and reads a form's line breaks (CRLF, as a browser posts them, or CR) as LF, before any action sees it", async () => {
    expect(await fields(new URLSearchParams({ name: "Ann\u200b Lee\u{e0041}", message: "Hi\u00ad\nthere\u202e" }).toString())).toEqual({
      name: "Ann Lee",
      message: "Hi\nthere",
    });
    expect(await fields(new URLSearchParams({ message: "one\r\ntwo\rthree\nfour" }).toString())).toEqual({ message: "one\ntwo\nthree\nfour" });
  });

  it("refuses what is not a urlencoded form with 415; a method but GET, HEAD and POST gets 405 (reject-malformed.ts); junk is read as fields", async () => {
    expect((await post(JSON.stringify({ name: "x" }), { "Content-Type": "application/json" })).status).toBe(415);
    expect((await post("--x\r\n", { "Content-Type": "multipart/form-data; boundary=x" })).status).toBe(415);
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const refused = await fetch(`${direct}/?index`, { method, body: "name=Eve", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
      expect([refused.status, refused.headers.get("allow")], method).toEqual([405, "GET, HEAD, POST"]);
    }
    // No formName among them: the action answers 400, as to any form not its own (tests/ops/proxy.spec.ts's small posts).
    expect(await fields("%%%\u0000\u00ff&&==")).toEqual({ "%%%\u0000\u00ff": "", "": "=" });
  });

  it("refuses a body over 64 KB with 413 and closes the connection", async () => {
    const response = await post(`message=${"x".repeat(MAX_FORM_BYTES)}`);
    expect([response.status, response.headers.get("connection")]).toEqual([413, "close"]);
  });

  it("refuses a body sent without a length as soon as it passes the cap: 413, before the body ends, and the connection closes", async () => {
    // A client of its own on a socket: 80 KB of a body in chunks, never its last chunk, then it only
    // listens. It writes nothing more, so nothing it could be told is lost to a write that fails.
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    await once(socket, "connect");
    socket.write(
      `POST /?index HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nX-Forwarded-For: 203.0.113.250\r\n\r\n`,
    );
    for (let sent = 0; sent < MAX_FORM_BYTES + 16_384; sent += 16_384) socket.write(`4000\r\n${"x".repeat(16_384)}\r\n`);
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
    await Promise.race([once(socket, "close"), once(socket, "error")]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer.endsWith("That form was larger than we accept.")).toBe(true);
  });
});

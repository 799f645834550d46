/**
 * The server as an operator first starts it and as an attacker meets it: slow bodies and malformed
 * requests; the headers on every answer, a kept page's as Express's; SIGTERM: new connections
 * refused, a request in flight finishes, then /healthz answers 503, idle keep-alive sockets close.
 * opsPort 21 and 29; distinct clients from distinct loopback addresses.
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { expect, test } from "@playwright/test";
import { HSTS_HEADER, PROTECTIVE_HEADERS } from "../../server/headers";
import { expectHashedScripts } from "../support/csp";
import { events, rawRequest, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { site, stop, undo } = startedByEachTest();
/** The server's deadline for a whole request (docs/operations.md). */
const REQUEST_DEADLINE = 20_000;
/** How long the server keeps an idle keep-alive connection open when it is not stopping (server/index.ts). */
const KEEP_ALIVE_TIMEOUT = 5_000;

test("200 clients trickling a body are each cut off at the 20 s deadline while / answers; malformed requests get a 4xx; the log is JSON lines, no error or stack, and warns of no TRUST_PROXY", async () => {
  // Over 30 s: the fixed 20 s deadline is what is tested; the 200 clients trickle at once, the attack it is for.
  test.setTimeout(90_000);
  const server = site(opsPort(21), {});
  await server.listening;
  // Rendered and compressed once, on its first request: the page cache's cost, not the slow clients'.
  expect((await fetch(`${server.url}/`)).status).toBe(200);
  /** Each client's time from its request's head to the server closing its connection. */
  const cutAfter: number[] = [];
  const sockets: Socket[] = [];
  undo(() => sockets.forEach((socket) => socket.destroy()));
  const heads = Array.from({ length: 200 }, (_, i) => {
    const socket = connect({ port: server.port, host: "127.0.0.1", localAddress: `127.0.1.${i + 2}` });
    sockets.push(socket.on("error", () => undefined));
    return new Promise<number>((resolve) =>
      socket.on("connect", () => {
        const sent = Date.now();
        socket.write(
          `POST /?index HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`,
        );
        const drip = setInterval(() => socket.writable && socket.write("a"), 2_000);
        socket.on("close", () => (clearInterval(drip), cutAfter.push(Date.now() - sent)));
        resolve(sent);
      }),
    );
  });
  const lastHead = Math.max(...(await Promise.all(heads)));
  // Malformed requests while they trickle, twenty of each: a log line per request, or one error a minute, would show.
  const host = `Host: 127.0.0.1:${server.port}`;
  const malformed = [
    `GET /% HTTP/1.1\r\n${host}`,
    `TRACE / HTTP/1.1\r\n${host}`,
    "GET / HTTP/1.1\r\nHost: a b",
    `GET / HTTP/1.1\r\n${host}\r\nX-Forwarded-Host: 127.0.0.1:99999999999999999999`,
    `GET http://elsewhere.example/ HTTP/1.1\r\n${host}`,
    `POST /?index HTTP/1.1\r\n${host}\r\nSec-Fetch-Site: same-origin\r\nOrigin: https://evil.example\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0`,
  ];
  for (const head of malformed) for (let i = 0; i < 20; i++) expect(Math.floor((await rawRequest(server.port, head)) / 100), `${head}: a 4xx`).toBe(4);
  // The page, answered while every client still holds its connection, and on until the last is cut off.
  const pages: { status: number; allHeld: boolean }[] = [];
  while (cutAfter.length < 200 && Date.now() < lastHead + REQUEST_DEADLINE + 10_000) {
    const response = await fetch(`${server.url}/`);
    await response.arrayBuffer();
    pages.push({ status: response.status, allHeld: cutAfter.length === 0 });
    await sleep(250); // the pace of the page asked for while the slow clients are cut off
  }
  expect(cutAfter, "clients cut off").toHaveLength(200);
  // Never before the deadline (a second's leeway between clocks); ten seconds after for a loaded machine.
  expect(Math.min(...cutAfter), "the soonest cut, ms after its head").toBeGreaterThanOrEqual(REQUEST_DEADLINE - 1_000);
  expect(Math.max(...cutAfter), "the latest cut, ms after its head").toBeLessThan(REQUEST_DEADLINE + 10_000);
  expect(pages.filter((p) => p.status !== 200)).toEqual([]);
  expect(pages.filter((p) => p.allHeld).length, "pages answered while all 200 held their connections").toBeGreaterThan(0);

  await stop(server);
  expect(server.stderr()).toBe("");
  const lines = events(server.stdout()); // each line is one JSON object, or this throws
  expect(lines.length).toBeGreaterThan(0); // a loop over no lines would pass
  // docs/operations.md, "Logs": a level (never error here), the time and the event; nothing of pino's own, no stack trace.
  const shape = { level: expect.stringMatching(/^(info|warn)$/), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), event: expect.any(String) };
  for (const line of lines) {
    expect(line, JSON.stringify(line)).toMatchObject(shape);
    expect(JSON.stringify(line)).not.toMatch(/\bat .+:\d+:\d+|"(pid|hostname|msg)":/);
  }
  expect(lines.filter((e) => e.event === "proxy_not_trusted")).toEqual([
    expect.objectContaining({ level: "warn", host: "127.0.0.1", variable: "TRUST_PROXY" }),
  ]);
});

test("every answer, a kept page's or Express's, has the protective headers and its CSP, HSTS only from a trusted proxy; SIGTERM ends in-flight work, exit 0", async () => {
  const [proxy, client] = ["127.0.0.2", "127.0.0.3"];
  const server = site(opsPort(29), { TRUST_PROXY: proxy });
  /** An answer to `from` over `proto`, checked: the protective headers, HSTS only over HTTPS from the proxy, and the CSP. */
  const checked = (path: string, from: string, proto: string, { method = "GET", headers = {} }: { method?: string; headers?: Record<string, string> } = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const options = { host: "127.0.0.1", port: server.port, path, method, localAddress: from, headers: { "X-Forwarded-Proto": proto, ...headers } };
      request(options, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
        .on("error", reject)
        .end();
    }).then((answer) => {
      const [what, { headers }] = [`${method} ${path} from ${from} over ${proto}`, answer];
      for (const [name, value] of PROTECTIVE_HEADERS) expect(headers[name], `${what}: ${name}`).toBe(value);
      const named = ["x-content-type-options", "x-frame-options", "referrer-policy", "cross-origin-opener-policy", "x-powered-by", "strict-transport-security"];
      const hsts = from === proxy && proto === "https" ? HSTS_HEADER[1] : undefined;
      const values = named.map((name) => headers[name]);
      expect(values, what).toEqual(["nosniff", "DENY", "strict-origin-when-cross-origin", "same-origin", undefined, hsts]);
      expect(headers["permissions-policy"], what).toContain("camera=()");
      const csp = String(headers["content-security-policy"]);
      expect(csp, what).not.toMatch(/unsafe|nonce/);
      for (const directive of ["default-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'self'", "object-src 'none'"])
        expect(csp, what).toContain(directive);
      const scriptSrc = csp.split(";").find((d) => d.startsWith("script-src"));
      if (!String(headers["content-type"]).startsWith("text/html")) expect(scriptSrc, what).toBe("script-src 'self'");
      else if (answer.body) expectHashedScripts(csp, answer.body, what);
      else expect(scriptSrc, what).toMatch(/^script-src 'self' 'sha256-/);
      return answer;
    });
  await server.listening;
  expect(await rawRequest(server.port, "GET /work HTTP/1.1\r\nHost: a b")).toBe(400);
  expect(await rawRequest(server.port, `GET /work HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Forwarded-Host: a b`)).toBe(400);
  // Kept pages, each asked for before it is kept (rendered into the page cache) and after.
  for (const round of ["rendered", "kept"])
    for (const [path, from, proto, method] of [
      ["/about", proxy, "https", "GET"],
      ["/services", client, "https", "GET"],
      ["/privacy", proxy, "http", "HEAD"],
    ]) {
      const answer = await checked(path!, from!, proto!, { method });
      const kept = [answer.status, answer.headers["cache-control"], answer.body === ""];
      expect(kept, `${round} ${path}`).toEqual([200, expect.stringMatching(/^public, /), method === "HEAD"]);
    }
  // Express's answers, each from the proxy over HTTPS and HTTP and from a client that says HTTPS.
  const asset = /\/build\/[^"]+\.js/.exec((await checked("/", client, "http")).body)![0];
  const others = ["/no-such-page", "/?sent=contact", "/healthz", "/robots.txt", "/sitemap.xml", asset, "/work?_data=routes%2Fwork", "/build/x.js", "//work"];
  for (const path of others)
    for (const [from, proto] of [
      [proxy, "https"],
      [proxy, "http"],
      [client, "https"],
    ])
      await checked(path, from!, proto!);
  // /healthz says only whether the server can serve, never kept by a cache (and 503 once it stops, below).
  const health = await checked("/healthz", client, "http");
  expect([health.status, health.headers["cache-control"], health.body]).toEqual([200, "no-store", '{"status":"ok"}']);
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  expect((await checked("/?index", client, "https", { method: "POST", headers: { ...form, Origin: "https://evil.example" } })).status).toBe(403);
  // A post to a resource route without an action: 405, naming what it takes (decision 0044).
  const robots = await checked("/robots.txt", client, "https", { method: "POST", headers: form });
  expect([robots.status, robots.headers.allow]).toEqual([405, "GET, HEAD"]);

  // SIGTERM, with a request in flight and a keep-alive connection idle.
  const body = new URLSearchParams({ formName: "contact", name: "Ada", email: "ada@example.com", service: "seo", message: "in flight" }).toString();
  const slow = connect(server.port, "127.0.0.1");
  let reply = "";
  slow.on("data", (chunk) => (reply += chunk));
  let slowClosed = false;
  const slowClose = new Promise((resolve) => slow.once("close", resolve)).then(() => (slowClosed = true));
  // Node answers "100 Continue" as it hands the request to the site: in flight, its body still arriving.
  slow.write(
    `POST /?index HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nExpect: 100-continue\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  await expect.poll(() => reply, { message: "the request in the server's hands" }).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
  reply = "";

  // A keep-alive connection made idle just before the signal: only the stop closes it this soon.
  const idle = connect(server.port, "127.0.0.1");
  await new Promise((resolve) => idle.once("connect", resolve));
  idle.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
  await new Promise((resolve) => idle.once("data", resolve));
  const idleSince = Date.now();
  const idleClosed = new Promise<number>((resolve) => idle.once("close", () => resolve(Date.now())));
  server.child.kill("SIGTERM");
  // Closed by the stop while the request in flight is still unanswered, before the keep-alive timeout could have.
  const idleClosedAt = await idleClosed;
  expect([slowClosed, reply], "the request in flight, when the idle socket closed").toEqual([false, ""]);
  expect(idleClosedAt - idleSince, "ms from the idle socket's answer to its close").toBeLessThan(KEEP_ALIVE_TIMEOUT);
  // server.close() stops listening, then closes the idle sockets: a new connection now is refused.
  expect(await fetch(`${server.url}/healthz`).catch(() => "refused"), "a new connection").toBe("refused");
  // The rest of the body, and on the same connection the question a load balancer asks.
  slow.write(`${body.slice(10)}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
  await slowClose;
  expect(reply).toMatch(/^HTTP\/1\.1 303 [^]*\r\n\r\nHTTP\/1\.1 503 [^]*\r\ncache-control: no-store\r\n[^]*\{"status":"unavailable"\}/i);
  // Exit 0 is the stop ending in time: one held past 13.5 s ends with code 1.
  expect((await server.exited).code).toBe(0);
  expect(server.stdout()).toContain('"event":"stopped"');
});

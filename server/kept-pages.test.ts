import { once } from "node:events";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HSTS_HEADER, PROTECTIVE_HEADERS } from "./headers";
import { keptPagesFirst } from "./kept-pages";
import { createLogger } from "./log";
import { createPageCache } from "./page-cache";

const PUBLIC = "public, max-age=0, s-maxage=300";
let port = 0;
let close = () => {};
beforeAll(async () => {
  const pages = createPageCache({
    pagePaths: ["/", "/about", "/broken"],
    variants: {},
    privateParams: ["sent"],
    commonHeaders: PROTECTIVE_HEADERS,
    render: async (key) => {
      if (key === "/broken") throw new Error("render failed");
      return new Response(`kept ${key}`, { headers: { "Content-Type": "text/html", "Cache-Control": PUBLIC } });
    },
  });
  // The server's fallback: says it answered, so each test sees who did.
  const app = express()
    .set("trust proxy", "127.0.0.2")
    .use((req, res) => void res.set("Cache-Control", "private, no-store").send(`express ${req.method} ${req.url}`));
  const server = createServer();
  server.on("request", keptPagesFirst(pages, app, createLogger({ write: () => undefined })));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  close = () => server.close();
});
afterAll(() => close());

function ask(
  path: string,
  { method = "GET", headers = {}, localAddress = "127.0.0.1" }: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, method, headers, localAddress }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("keptPagesFirst", () => {
  it("answers a GET or HEAD for a page from the cache, rendered into it on a miss, with the protective headers", async () => {
    for (const round of ["rendered", "kept"]) {
      const page = await ask("/about?utm_source=x");
      expect([page.status, page.body], round).toEqual([200, "kept /about"]);
      expect(page.headers["x-frame-options"], round).toBe("DENY");
      expect(page.headers["strict-transport-security"], round).toBeUndefined();
    }
    expect((await ask("/", { method: "HEAD" })).headers["cache-control"]).toBe(PUBLIC);
  });

  it("leaves everything else to Express: posts, other paths, per-visitor pages, a Host that is not one, a failed render", async () => {
    expect((await ask("/", { method: "POST" })).body).toBe("express POST /");
    expect((await ask("/work")).body).toBe("express GET /work");
    expect((await ask("/About")).body).toBe("express GET /About");
    expect((await ask("/?sent=contact")).body).toBe("express GET /?sent=contact");
    expect((await ask("/", { headers: { Host: "a b" } })).body).toBe("express GET /");
    expect((await ask("/broken")).body).toBe("express GET /broken");
  });

  it("adds HSTS when a proxy TRUST_PROXY trusts says the request came over HTTPS, and only then", async () => {
    const byProxy = await ask("/", { headers: { "X-Forwarded-Proto": "https" }, localAddress: "127.0.0.2" });
    expect(byProxy.headers[HSTS_HEADER[0]]).toBe(HSTS_HEADER[1]);
    const direct = await ask("/", { headers: { "X-Forwarded-Proto": "https" } });
    expect(direct.headers["strict-transport-security"]).toBeUndefined();
  });
});

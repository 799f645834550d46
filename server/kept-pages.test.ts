import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTECTIVE_HEADERS } from "./headers";
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
  const app = express().use((req, res) => void res.set("Cache-Control", "private, no-store").send(`express ${req.method} ${req.url}`));
  const server = createServer();
  server.on("request", keptPagesFirst(pages, app, createLogger({ write: () => undefined })));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  close = () => server.close();
});
afterAll(() => close());

/** The body of an answer to `path`, through node:http (fetch sets its own Host). */
const ask = (path: string, { method = "GET", headers = {} }: { method?: string; headers?: Record<string, string> } = {}) =>
  new Promise<{ body: string }>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ body }));
    })
      .on("error", reject)
      .end();
  });

// What a kept page is answered with (from the cache, rendered into it on a miss, with the protective
// headers; HSTS only from a trusted proxy) is tests/ops/server.spec.ts's, on the real server's
// first request and its next: "a page's first request, rendered into the page cache before Express …".
describe("keptPagesFirst", () => {
  it("answers a page from the cache, and leaves everything else to Express: posts, other paths, per-visitor pages, a Host that is not one, a failed render", async () => {
    expect((await ask("/about?utm_source=x")).body).toBe("kept /about");
    expect((await ask("/", { method: "POST" })).body).toBe("express POST /");
    expect((await ask("/work")).body).toBe("express GET /work");
    expect((await ask("/About")).body).toBe("express GET /About");
    expect((await ask("/?sent=contact")).body).toBe("express GET /?sent=contact");
    expect((await ask("/", { headers: { Host: "a b" } })).body).toBe("express GET /");
    expect((await ask("/broken")).body).toBe("express GET /broken");
  });
});

import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everyAnswersHeaders, HSTS_HEADER, PROTECTIVE_HEADERS } from "./headers";

let origin = "";
let close = () => {};
beforeAll(async () => {
  const app = express()
    .disable("x-powered-by")
    .set("trust proxy", "loopback")
    .use(everyAnswersHeaders({ dev: false }))
    .get("/document", (_req, res) => void res.set("Content-Security-Policy", "script-src 'self' 'sha256-x'").send("<p>page</p>"))
    .get("/text", (_req, res) => void res.type("text/plain").send("text"));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

describe("the headers every answer carries", () => {
  it("are the same from Express's middleware as in the list a kept page is built with", async () => {
    const response = await fetch(`${origin}/text`);
    for (const [name, value] of PROTECTIVE_HEADERS) expect(response.headers.get(name), name).toBe(value);
    expect(PROTECTIVE_HEADERS.map(([name]) => name)).toEqual(expect.arrayContaining(["x-frame-options", "referrer-policy", "permissions-policy"]));
    expect(response.headers.get("x-powered-by")).toBeNull();
  });

  it("add HSTS when a trusted proxy says the request came over HTTPS, as a kept page gets it", async () => {
    expect((await fetch(`${origin}/text`)).headers.get("strict-transport-security")).toBeNull();
    const secure = await fetch(`${origin}/text`, { headers: { "X-Forwarded-Proto": "https" } });
    expect(secure.headers.get(HSTS_HEADER[0])).toBe(HSTS_HEADER[1]);
    expect(HSTS_HEADER).toEqual(["strict-transport-security", "max-age=63072000; includeSubDomains"]);
  });
});

import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalPath, oneAddress } from "./canonical-path";

describe("canonicalPath", () => {
  it.each([
    "/",
    "/work",
    "/services",
    "/build/entry.client-SJGYHRFX.js",
    "/.well-known/security.txt",
    "/caf%C3%A9",
    "/work%2F",
    "/%2F",
    "/a/...",
    "/%5Cevil.example",
  ])("%s is canonical", (path) => expect(canonicalPath(path)).toBe(path));

  it.each([
    ["//", "/"],
    ["///", "/"],
    ["///work", "/work"],
    ["/work//", "/work"],
    ["/work/", "/work"],
    ["/./", "/"],
    ["/%2e/", "/"],
    ["/%2E%2e/", "/"],
    ["/..", "/"],
    ["/../../work", "/work"],
    ["/work/../about", "/about"],
    ["/about/.", "/about"],
    ["/services/", "/services"],
    ["/%73ervices", "/services"],
    ["/%7Eteam%2d%5F", "/~team-_"],
    ["/caf%c3%a9", "/caf%C3%A9"],
    ["/%2f", "/%2F"],
    ["/\\", "/"],
    ["/\\evil.example", "/evil.example"],
    ["//evil.example/", "/evil.example"],
    ["/work\\", "/work"],
    ["/build//x.js", "/build/x.js"],
  ])("%s → %s", (path, canonical) => {
    expect(canonicalPath(path)).toBe(canonical);
    expect(canonicalPath(canonical)).toBe(canonical);
  });

  it("never answers with a path a browser reads as another host", () => {
    for (const path of [
      "//evil.example",
      "/\\evil.example",
      "/.//evil.example",
      "/%2e//evil.example",
      "/..//evil.example",
      "/\\/evil.example",
      "/%5C/evil.example/",
    ])
      expect(canonicalPath(path)).toMatch(/^\/(?![/\\])/);
  });

  it("leaves a path that does not decode to Express, which refuses it", () => {
    for (const path of ["/%", "/%zz/", "/%C3/", "/a/%"]) expect(canonicalPath(path)).toBe(path);
  });
});

describe("oneAddress", () => {
  let origin = "";
  let close = () => {};
  beforeAll(async () => {
    const app = express()
      .use(oneAddress(new Set(["/", "/services", "/about"])))
      .use((req, res) => void res.send(`${req.method} ${req.url}`));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());
  const ask = (path: string, method = "GET") => fetch(`${origin}${path}`, { method, redirect: "manual" });

  it("sends a page path in odd case to its lowercase path, query kept; other odd paths are not its business", async () => {
    expect((await ask("/SeRvIcEs")).headers.get("location")).toBe("/services");
    expect((await ask("/About?utm_source=x", "HEAD")).headers.get("location")).toBe("/about?utm_source=x");
    expect(await (await ask("/NoSuchPage")).text()).toBe("GET /NoSuchPage");
  });

  it("answers an odd address with a 301 to its one address in one hop, query kept, cacheable for an hour", async () => {
    const response = await ask("//SERVICES/?utm_source=x");
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/services?utm_source=x");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("content-length")).toBe("0");
    expect(await (await ask("/services")).text()).toBe("GET /services");
  });

  it("refuses a form posted to an odd address unread, and lets a post to a page in odd case through", async () => {
    const refused = await ask("//", "POST");
    expect(refused.status).toBe(404);
    expect(refused.headers.get("connection")).toBe("close");
    expect(refused.headers.get("content-length")).toBe("9");
    expect(await refused.text()).toBe("Not found");
    expect(await (await ask("/About", "POST")).text()).toBe("POST /About");
  });
});

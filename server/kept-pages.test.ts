import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { expect, it } from "vitest";
import { keptPagesFirst } from "./kept-pages";
import { createPageCache } from "./page-cache";

// What else keptPagesFirst leaves to Express, the real server shows by Express's answers: a post
// (any form's), a per-visitor page (private: tests/caching.spec.ts), a page path in odd case (a 301:
// canonical-paths.spec.ts), a Host that is not one (400: tests/ops/server.spec.ts); and what a kept
// page is answered with, tests/caching.spec.ts and tests/ops/server.spec.ts.
it("leaves a page whose render failed to Express, which renders it for the request", async ({ onTestFinished }) => {
  const render = () => Promise.reject(new Error("render failed"));
  const pages = createPageCache({ pagePaths: ["/broken"], variants: {}, privateParams: [], commonHeaders: [], render });
  const app = express().use((req, res) => void res.send(`express ${req.method} ${req.url}`));
  const server = createServer(keptPagesFirst(pages, app)).listen(0, "127.0.0.1");
  onTestFinished(() => void server.close());
  await once(server, "listening");
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/broken?utm_source=x`);
  expect(await answer.text()).toBe("express GET /broken?utm_source=x");
});

import { describe, expect, it } from "vitest";
import type { ServerBuild } from "@remix-run/node";
import { resourceMethods, routePaths } from "./route-paths";

const module = (component: boolean, { loader = !component, action = false } = {}) => ({
  ...(component ? { default: () => null } : {}),
  ...(loader ? { loader: () => null } : {}),
  ...(action ? { action: () => null } : {}),
});
// The shape of the Remix build's route manifest (build/index.js `routes`).
const routes = {
  root: { id: "root", path: "", module: module(true) },
  "routes/_index": { id: "routes/_index", parentId: "root", index: true, module: module(true) },
  "routes/services": { id: "routes/services", parentId: "root", path: "services", module: module(true) },
  "routes/healthz": { id: "routes/healthz", parentId: "root", path: "healthz", module: module(false) },
  "routes/robots[.]txt": { id: "routes/robots[.]txt", parentId: "root", path: "robots.txt", module: module(false) },
  "routes/ping": { id: "routes/ping", parentId: "root", path: "ping", module: module(false, { loader: false, action: true }) },
  "routes/files.$id": { id: "routes/files.$id", parentId: "root", path: "files/:id", module: module(false) },
  "routes/blog.$slug": { id: "routes/blog.$slug", parentId: "root", path: "blog/:slug", module: module(true) },
  "routes/docs.$": { id: "routes/docs.$", parentId: "root", path: "docs/*", module: module(true) },
} as unknown as ServerBuild["routes"];

describe("routePaths", () => {
  it("takes every path of the app from the route manifest, leaving out those with parameters or splats", () => {
    expect(routePaths(routes).sort()).toEqual(["/", "/healthz", "/ping", "/robots.txt", "/services"]);
  });

  it("with pages, only the routes that render a component", () => {
    expect(routePaths(routes, { pagesOnly: true }).sort()).toEqual(["/", "/services"]);
  });
});

describe("resourceMethods", () => {
  it("names the methods each resource route answers: GET and HEAD with a loader, POST with an action", () => {
    expect(Object.fromEntries(resourceMethods(routes))).toEqual({ "/healthz": ["GET", "HEAD"], "/robots.txt": ["GET", "HEAD"], "/ping": ["POST"] });
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerBuild } from "@remix-run/node";
import { createMetrics, routeLabel } from "./metrics";
import { routePaths } from "./route-paths";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});
const url = (server: Server, path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

// The shape of the Remix build's route manifest (build/index.js `routes`), as this app has it.
const manifest = {
  root: { id: "root", path: "" },
  "routes/_index": { id: "routes/_index", index: true, parentId: "root" },
  "routes/services": { id: "routes/services", path: "services", parentId: "root" },
  "routes/work": { id: "routes/work", path: "work", parentId: "root" },
  "routes/about": { id: "routes/about", path: "about", parentId: "root" },
  "routes/healthz": { id: "routes/healthz", path: "healthz", parentId: "root" },
  "routes/robots[.]txt": { id: "routes/robots[.]txt", path: "robots.txt", parentId: "root" },
  "routes/sitemap[.]xml": { id: "routes/sitemap[.]xml", path: "sitemap.xml", parentId: "root" },
  "routes/blog.$slug": { id: "routes/blog.$slug", path: "blog/:slug", parentId: "root" },
} as unknown as ServerBuild["routes"];
const PATHS = routePaths(manifest);

describe("routeLabel", () => {
  it("names the app's routes, folds assets into one label and everything else into another", () => {
    const label = (path: string) => routeLabel(path, new Set(PATHS));
    const routes = ["/", "/services", "/work", "/about", "/healthz", "/robots.txt", "/sitemap.xml"];
    expect(routes.map(label)).toEqual(routes);
    expect(label("/work/")).toBe("/work");
    expect(["/build/entry.client-ABC123.js", "/favicon.ico", "/images/team.webp"].map(label)).toEqual(["assets", "assets", "assets"]);
    expect(["/wp-login", "/services/anything", "/%2e%2e/etc", "/blog/some-post", "/about/x"].map(label)).toEqual(["other", "other", "other", "other", "other"]);
  });
});

describe("createMetrics", () => {
  it("counts leads by kind and attempts by outcome, reads the queue's figures at each scrape", async () => {
    type Stats = { pending: number; parked: number; oldestPendingSeconds: number | null; heldFor?: Record<string, number>; heldAddresses?: number };
    let stats: Stats = { pending: 0, parked: 0, oldestPendingSeconds: null };
    const metrics = createMetrics(PATHS, () => stats);
    for (const kind of ["contact", "contact", "calculator"] as const) metrics.events.accepted(kind);
    metrics.events.attempted("contact", "retried", 0.3);
    metrics.events.attempted("contact", "delivered", 0.2);
    metrics.events.attempted("calculator", "parked", 0.1);
    stats = { pending: 2, parked: 1, oldestPendingSeconds: 4000, heldFor: { ceiling: 2, address: 1 }, heldAddresses: 2 };
    let text = await metrics.registry.metrics();
    const lines = text.split("\n");
    for (const sample of [
      ...['leads_accepted_total{kind="contact"} 2', 'leads_accepted_total{kind="calculator"} 1', 'leads_delivered_total{kind="contact"} 1'],
      ...['leads_delivered_total{kind="calculator"} 0', 'lead_delivery_retries_total{kind="contact"} 1', 'leads_parked_total{kind="calculator"} 1'],
      ...['lead_delivery_attempt_duration_seconds_count{outcome="delivered"} 1', "leads_pending 2", "leads_parked_now 1"],
      ...["leads_oldest_pending_age_seconds 4000", 'leads_held_now{reason="ceiling"} 2', 'leads_held_now{reason="address"} 1', "leads_held_addresses 2"],
    ])
      expect(lines).toContain(sample);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    stats = { pending: 0, parked: 0, oldestPendingSeconds: null, heldFor: { unknown: 1 } };
    text = await metrics.registry.metrics();
    expect(text).toMatch(/^leads_oldest_pending_age_seconds 0$/m);
    // Both rules from the first scrape; a reason the rows name, as it is (a lead held before reasons were kept).
    expect(text.match(/^leads_held_now\{.*$/gm)).toEqual([
      'leads_held_now{reason="ceiling"} 0',
      'leads_held_now{reason="address"} 0',
      'leads_held_now{reason="unknown"} 1',
    ]);
  });

  it("labels every series with the container and the store it reports (with PostgreSQL, the one every container shares)", async () => {
    const metrics = createMetrics(PATHS, () => ({ pending: 1, parked: 0, oldestPendingSeconds: null }), { container: "site-2", store: "postgresql" });
    metrics.events.accepted("contact");
    const samples = (await metrics.registry.metrics()).split("\n").filter((line) => line && !line.startsWith("#"));
    expect(samples.length).toBeGreaterThan(50);
    expect(samples.filter((line) => !/\{(.+,)?container="site-2",store="postgresql"(,.+)?\} /.test(line))).toEqual([]);
    expect(samples).toContain('leads_pending{container="site-2",store="postgresql"} 1');
  });

  it("counts refused posts by how they looked, and posts whose proxy named no client, each from the first scrape", async () => {
    const metrics = createMetrics(PATHS, () => ({ pending: 0, parked: 0, oldestPendingSeconds: null }));
    let text = await metrics.registry.metrics();
    expect(text).toMatch(/^form_posts_refused_total\{looks="same-site"\} 0$/m);
    expect(text).toMatch(/^form_posts_client_unknown_total 0$/m);
    for (const looks of ["same-site", "cross-site", "cross-site"] as const) metrics.formPosts.refused(looks);
    metrics.formPosts.clientUnknown();
    text = await metrics.registry.metrics();
    expect(text).toMatch(/^form_posts_refused_total\{looks="same-site"\} 1$/m);
    expect(text).toMatch(/^form_posts_refused_total\{looks="cross-site"\} 2$/m);
    expect(text).toMatch(/^form_posts_client_unknown_total 1$/m);
  });

  it("times requests by route label, method and status, never by the raw URL", async () => {
    const metrics = createMetrics(PATHS, () => ({ pending: 0, parked: 0, oldestPendingSeconds: null }));
    const app = createServer((req, res) => void res.writeHead(req.url?.startsWith("/?") ? 200 : 404).end());
    app.prependListener("request", metrics.timeRequests);
    servers.push(app);
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    await fetch(url(app, "/?email=ada@example.com"));
    await fetch(url(app, "/secret-path-ada"));
    await fetch(url(app, "/build/x.js"), { method: "DELETE" });
    // Each is timed as its answer finishes on the server, which may be just after the client has it.
    const series = async () => (await metrics.registry.metrics()).match(/^http_request_duration_seconds_count\{/gm)?.length ?? 0;
    await expect.poll(series).toBe(3);
    const text = await metrics.registry.metrics();
    expect(text).toContain('http_request_duration_seconds_count{route="/",method="GET",status="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{route="other",method="GET",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{route="assets",method="other",status="404"} 1');
    expect(text).not.toMatch(/ada|secret/);
  });

  it("serves the text format at GET /metrics on its own listener, and 404 for anything else", async () => {
    const metrics = createMetrics(PATHS, () => ({ pending: 0, parked: 0, oldestPendingSeconds: null }));
    const server = await metrics.listen(0, "127.0.0.1");
    servers.push(server);
    const ok = await fetch(url(server, "/metrics"));
    expect([ok.status, ok.headers.get("content-type")]).toEqual([200, expect.stringContaining("text/plain; version=0.0.4")]);
    expect(await ok.text()).toContain("# TYPE leads_accepted_total counter");
    expect((await fetch(url(server, "/"))).status).toBe(404);
    expect((await fetch(url(server, "/metrics"), { method: "POST" })).status).toBe(404);
  });
});

/**
 * Prometheus metrics (prom-client) on a listener of their own (METRICS_PORT), never the public port (decision 0013).
 * Labels are bounded and carry no personal data: route names from a fixed list, status codes, lead kinds and outcomes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Hit } from "./funnel";
import type { PostEvents } from "./form-posts";
import type { LeadEvents, LeadStats } from "./leads/types";

const METHODS = new Set(["GET", "HEAD", "POST"]);

/** A route's path, "assets" or "other": never the raw URL, which a client could make unbounded. */
export function routeLabel(path: string, routes: ReadonlySet<string>): string {
  const bare = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  if (routes.has(bare)) return bare;
  if (bare.startsWith("/build/") || /\.[a-z0-9]+$/i.test(bare)) return "assets";
  return "other";
}

/**
 * `paths`: the app's routes. `leadStats` is read at each scrape. `where` labels every series (decision 0047): the
 * `container`, and the `store` the store's alerts aggregate by ("postgresql", shared, fires once; else the container's).
 */
export function createMetrics(
  paths: string[],
  leadStats: () => Pick<LeadStats, "pending" | "parked" | "oldestPendingSeconds"> & Partial<Pick<LeadStats, "heldFor" | "heldAddresses" | "failing">>,
  where?: { container: string; store: string },
) {
  const routes = new Set(paths);
  const registry = new Registry();
  if (where) registry.setDefaultLabels(where);
  collectDefaultMetrics({ register: registry });
  // Each series a rate() reads starts at 0, so its first event shows.
  const counter = (name: string, help: string, labelNames: string[] = [], zeroes: string[] = []) => {
    const made = new Counter({ name, help, labelNames, registers: [registry] });
    for (const value of zeroes) made.inc({ [labelNames[0]!]: value }, 0);
    return made;
  };
  const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers: [registry] });

  const requestDuration = histogram(
    "http_request_duration_seconds",
    "Time from a request's arrival to its answer's end, by route (the app's paths, assets, other), method and status.",
    ["route", "method", "status"],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const kinds = ["calculator", "contact"];
  const accepted = counter("leads_accepted_total", "Leads stored for delivery.", ["kind"], kinds);
  const outcomes = {
    delivered: counter("leads_delivered_total", "Leads the form service confirmed.", ["kind"], kinds),
    retried: counter("lead_delivery_retries_total", "Delivery attempts that failed and will be tried again.", ["kind"], kinds),
    parked: counter("leads_parked_total", "Leads refused for good or expired: kept, no longer retried.", ["kind"], kinds),
  };
  const held = counter("leads_held_total", "Leads held back over the site-wide ceiling or an address's share (decision 0031).", ["kind"], kinds);
  const attemptDuration = histogram(
    "lead_delivery_attempt_duration_seconds",
    "Time one delivery attempt took, by outcome (delivered, retried, parked).",
    ["outcome"],
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );

  const gauges: [string, string, (stats: ReturnType<typeof leadStats>) => number][] = [
    ["leads_pending", "Leads stored and not yet delivered (with DATABASE_URL, the shared store's count).", (s) => s.pending],
    ["leads_parked_now", "Leads parked now, waiting for an operator (npm run -s leads -- retry).", (s) => s.parked],
    ["leads_held_addresses", "Distinct address codes among the leads held now: a flood is many leads on few codes.", (s) => s.heldAddresses ?? 0],
    ["lead_store_failing", "1 while the lead store cannot be read or written, else 0.", (s) => (s.failing ? 1 : 0)],
    ["leads_oldest_pending_age_seconds", "Age of the oldest lead not yet delivered; 0 when none is pending.", (s) => s.oldestPendingSeconds ?? 0],
  ];
  for (const [name, help, value] of gauges)
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value(leadStats()));
      },
    });
  new Gauge({
    name: "leads_held_now",
    help: "Leads held now, by the rule that held them: ceiling (LEADS_PER_HOUR) or address (one address's share).",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      this.reset(); // a reason no longer held goes to 0 below, or (`unknown`) away
      for (const [reason, n] of Object.entries({ ceiling: 0, address: 0, ...leadStats().heldFor })) this.set({ reason }, n);
    },
  });

  const funnel = counter(
    "funnel_steps_total",
    "Landings on a page from outside the site (landed), visits that reached a calculator step (2-5) or sent a form (sent, contact), by device.",
    ["event", "device"],
  );
  // What a proxy's misconfiguration can cost or blur (decision 0032).
  const refused = counter(
    "form_posts_refused_total",
    "Posts the cross-site check refused: cross-site (the browser said so), same-site (no Sec-Fetch-Site, an Origin naming another host).",
    ["looks"],
    ["cross-site", "same-site"],
  );
  // Not the histogram's POST 5xx series, which appears only at its first failure, already above 0.
  const postsFailed = counter("form_posts_failed_total", "Posts answered with a 5xx: a visitor told to try again.");
  const clientUnknown = counter("form_posts_client_unknown_total", "Posts from a trusted proxy that named no client (no X-Forwarded-For).");

  return {
    registry,
    events: {
      accepted: (kind) => accepted.inc({ kind }),
      attempted(kind, outcome, seconds) {
        outcomes[outcome].inc({ kind });
        attemptDuration.observe({ outcome }, seconds);
      },
      held: (kind) => held.inc({ kind }),
    } satisfies LeadEvents,
    formPosts: { refused: (looks) => refused.inc({ looks }), clientUnknown: () => clientUnknown.inc() } satisfies PostEvents,
    /** A listener for the HTTP server's "request" event (first): times every answer by route, method and status. */
    timeRequests(req: IncomingMessage, res: ServerResponse) {
      const end = requestDuration.startTimer();
      const route = routeLabel((req.url ?? "/").split("?")[0]!, routes); // before Express's mounts cut req.url
      res.once("close", () => {
        const method = METHODS.has(req.method ?? "") ? req.method! : "other";
        end({ route, method, status: String(res.statusCode) });
        if (method === "POST" && res.statusCode >= 500) postsFailed.inc();
      });
    },
    counted: ({ event, device }: Hit) => funnel.inc({ event, device }),
    /** Serves GET /metrics, and GET /funnel when `funnelPage` is given. */
    listen(port: number, host?: string, funnelPage?: () => Promise<string>): Promise<Server> {
      const pages = new Map<string, { body: () => Promise<string>; type: string; name: string }>();
      pages.set("/metrics", { body: () => registry.metrics(), type: registry.contentType, name: "Metrics" });
      if (funnelPage) pages.set("/funnel", { body: funnelPage, type: "text/html; charset=utf-8", name: "Funnel" });
      const server = createServer((req, res) => {
        const page = pages.get(req.url?.split("?")[0] ?? "");
        if (req.method !== "GET" || !page) return void res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found");
        page.body().then(
          (text) => res.writeHead(200, { "Content-Type": page.type, "Cache-Control": "no-store" }).end(text),
          () => res.writeHead(500, { "Content-Type": "text/plain" }).end(`${page.name} failed`),
        );
      });
      return new Promise((resolve, reject) => server.once("error", reject).listen(port, host, () => resolve(server)));
    },
  };
}

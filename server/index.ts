/**
 * The site's server: Express with Remix's adapter, serving the build from `npm run build`. It does
 * what must happen before Remix, or for every answer: client addresses, timeouts, limits and the
 * form-post rules, protective headers, precompressed assets, the page cache, JSON logs and a
 * graceful stop. docs/decisions/0008-own-express-server.md says why each piece is here.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler as createRemixHandler, type ServerBuild } from "@remix-run/node";
import closeWithGrace from "close-with-grace";
import compression from "compression";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import helmet from "helmet";
import onHeaders from "on-headers";
import { pino } from "pino";
import { PRIVATE_QUERY_PARAMS } from "~/utils/cache-headers";
import { contentSecurityPolicy } from "~/utils/csp.server";
import { pageVariants } from "~/utils/page-variants.server";
import { version } from "../package.json";
import { describeConfig, parseConfig } from "./config";
import { createDraftStore } from "./drafts";
import { formPosts } from "./form-posts";
import { createLeadInbox } from "./lead-inbox";
import { createLogger, requestLogger } from "./log";
import { createMetrics } from "./metrics";
import { createPageCache } from "./page-cache";
import { createRateLimits } from "./rate-limits";
import { rejectMalformed, wellFormedHost } from "./reject-malformed";
import { ACTION_METHODS, remixHandler } from "./remix-handler";
import { routePaths } from "./route-paths";

process.env.NODE_ENV ??= "production"; // before the build (and React) is loaded
const log = createLogger();
let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env, version);
} catch (error) {
  createLogger(pino.destination(2)).error({ error: (error as Error).message }, "config_invalid");
  process.exit(1);
}
// SITE_URL widened the old cross-site check; ours compares hosts and needs it no more (0008).
if (process.env.SITE_URL) log.warn({ variable: "SITE_URL" }, "config_variable_unused");
// Node's own warnings would print plain text on stderr: keep the log JSON-only.
process.removeAllListeners("warning").on("warning", (warning) => log.warn({ err: warning }, "node_warning"));

const BUILD = path.resolve("build/index.js");
const importBuild = (): Promise<ServerBuild> => import(`${pathToFileURL(BUILD).href}?t=${Date.now()}`);
let build = await importBuild();

const limits = createRateLimits(config.redisUrl, log);
// Metrics only with METRICS_PORT; the gauges read the queue's figures when scraped.
const metrics = config.metricsPort ? createMetrics(routePaths(build.routes), () => inbox.stats()) : undefined;
const inbox = createLeadInbox(config, limits, log, metrics?.events);
try {
  await inbox.start(); // picks up whatever was pending when the server last stopped
} catch (error) {
  // A store that cannot be read stops the start, untouched (decision 0012).
  log.error({ file: config.leadsDb, error: (error as Error).message }, "lead_store_unusable");
  process.exit(1);
}
const drafts = createDraftStore({ redisUrl: config.redisUrl, log });
const PERMISSIONS_POLICY =
  "accelerometer=(), browsing-topics=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), midi=(), payment=(), serial=(), usb=()";
const HSTS = ["strict-transport-security", "max-age=63072000; includeSubDomains"] as const;
/** Every answer's CSP but a document's, which brings its own with its scripts' hashes (entry.server). */
const COMMON_CSP = contentSecurityPolicy([], { dev: config.dev });
/**
 * The protective headers are the same for every answer (no nonce since decision 0014): helmet
 * works them out once, here, and each answer copies the list (a cached page has it built in).
 */
const PROTECTIVE: [string, string][] = [
  ...headersOf(
    helmet({
      contentSecurityPolicy: false,
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      strictTransportSecurity: false,
      xFrameOptions: { action: "deny" },
    }),
  ),
  ["permissions-policy", PERMISSIONS_POLICY],
];

/** The headers a header-setting middleware sets, recorded once. */
function headersOf(middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): [string, string][] {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return [...headers];
}

const trusted = (): ((address: string, hop: number) => boolean) => app.get("trust proxy fn");
/** req.secure without Express: TLS, or a trusted proxy that says so (X-Forwarded-Proto). */
function secure(req: IncomingMessage): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  const proto = req.headers["x-forwarded-proto"];
  return typeof proto === "string" && trusted()(req.socket.remoteAddress ?? "", 0) && proto.split(",")[0]!.trim() === "https";
}

const remix = createRemixHandler(build, "production");
// The page cache renders a page's key as a GET of its own: no visitor's headers, cookie or Host.
const pages = createPageCache({
  pagePaths: routePaths(build.routes, { pages: true }),
  variants: pageVariants,
  privateParams: PRIVATE_QUERY_PARAMS,
  commonHeaders: PROTECTIVE,
  render: (key) =>
    remix(new Request(new URL(key, "http://localhost")), {
      clientAddress: undefined,
      submitLead: () => Promise.reject(new Error("a page render takes no leads")),
      serving: () => !stopping,
      drafts,
      log,
    }),
});

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", config.trustProxy);
app.set("query parser", "simple");
app.use((req, res, next) => {
  for (const [name, value] of PROTECTIVE) res.setHeader(name, value);
  if (req.secure) res.setHeader(...HSTS);
  // A document from Remix brings its own policy; every other answer gets the common one.
  onHeaders(res, () => void (res.hasHeader("content-security-policy") || res.setHeader("content-security-policy", COMMON_CSP)));
  next();
});
app.use(rejectMalformed(app.get("trust proxy fn")));

// Fingerprinted assets, with brotli and gzip files made at build time (scripts/build-server.mjs).
app.use(
  "/build",
  expressStaticGzip("public/build", {
    enableBrotli: true,
    orderPreference: ["br", "gz"],
    serveStatic: { immutable: true, maxAge: "1y", index: false, redirect: false },
  }),
  (_req, res) => void res.status(404).type("text/plain").send("Not found"),
);
// A page not in memory yet (or a request with Express's checks to pass first): rendered once, kept.
app.get("*", (req, res, next) => {
  const route = config.dev ? null : pages.route(req.method, req.originalUrl);
  if (route === null || "redirect" in route) return next();
  pages.fetch(route.key).then((page) => {
    if (page === undefined) return next(); // not a page to keep (an error, private): Remix answers this request itself
    for (const name of res.getHeaderNames()) res.removeHeader(name); // the page's list has them all
    pages.send(req, res, page, req.secure ? HSTS : []);
  }, next);
});
app.use(compression());
const publicFiles = express.static("public", { maxAge: "1h", index: false, redirect: false });
// Pages have no extension: only paths that look like files cost a look in public/.
app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()));

const posts = formPosts({ limits, log });
app.use((req, res, next) => (ACTION_METHODS.has(req.method) ? posts(req, res, next) : next()));
app.all(
  "*",
  remixHandler(config.dev ? createRemixHandler(async () => build, "development") : remix, (req, res) => ({
    clientAddress: req.ip,
    submitLead: (lead) => inbox.submit(res.locals.form, lead),
    serving: () => !stopping,
    drafts,
    log,
  })),
);
// Whatever got here is an error: a short answer, one JSON line, never a stack trace.
app.use(((error, req, res, _next) => {
  const status = Number((error as { status?: unknown }).status);
  const known = status >= 400 && status < 500;
  if (!known) log.error({ err: error, method: req.method, path: req.path }, "error");
  if (res.headersSent) return void res.destroy();
  res
    .status(known ? status : 500)
    .set("Cache-Control", "private, no-store")
    .type("text/plain")
    .send(known ? "Bad request" : "Something went wrong");
}) as express.ErrorRequestHandler);

const logRequest = requestLogger(log);
const REDIRECT_HEADERS = [...PROTECTIVE.flat(), "content-security-policy", COMMON_CSP, "cache-control", "public, max-age=3600", "content-length", "0"];
/**
 * Every request: its log line, then a kept page straight from memory (or the 301 from a page's
 * path in odd case to its own), else Express. A malformed Host is Express's to refuse.
 */
function handle(req: IncomingMessage, res: ServerResponse) {
  logRequest(req, res, () => undefined);
  const route = config.dev || !wellFormedHost(req.headers) ? null : pages.route(req.method, req.url ?? "");
  if (route !== null && "redirect" in route) {
    try {
      res.writeHead(301, [...REDIRECT_HEADERS, "location", route.redirect, ...(secure(req) ? HSTS : [])]);
    } catch {
      return void app(req, res); // a query no header may carry: Express and Remix answer it (404)
    }
    return void res.end();
  }
  const page = route === null ? undefined : pages.peek(route.key);
  if (page === undefined) return void app(req, res);
  pages.send(req, res, page, secure(req) ? HSTS : []);
}

// Headers within 10 s, the whole request within 20 s (checked every second), idle keep-alive 5 s.
const server = createServer({ headersTimeout: 10_000, requestTimeout: 20_000, connectionsCheckingInterval: 1_000, keepAliveTimeout: 5_000 }, handle);
server.once("error", (error) => {
  log.error({ err: error, port: config.port }, "listen_failed");
  process.exit(1);
});
// Timed on the HTTP server itself, first of its listeners: every answer, whoever writes it.
if (metrics) server.prependListener("request", metrics.timeRequests);
// /healthz answers 503 from the moment a stop begins (on connections still open).
let stopping = false;
const metricsServer = metrics?.listen(config.metricsPort!, config.host).catch((error: unknown) => {
  log.error({ err: error, port: config.metricsPort }, "listen_failed");
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  log.info({ ...describeConfig(config), address: server.address() }, "start");
  if (config.dev) void import("./dev").then(({ watchBuild }) => watchBuild(BUILD, importBuild, (next) => (build = next), log));
});

closeWithGrace({ delay: 15_000, logger: { error: (error: unknown) => log.error({ err: error }, "shutdown_error") } }, async ({ signal }) => {
  stopping = true;
  log.info({ signal }, "stopping");
  // Stop accepting; close keep-alive sockets as soon as each is idle (requests in flight finish).
  const sweep = setInterval(() => server.closeIdleConnections(), 200);
  await new Promise((resolve) => server.close(resolve));
  clearInterval(sweep);
  await inbox.close();
  await limits.close();
  const metricsListener = await metricsServer;
  if (metricsListener) await new Promise((resolve) => metricsListener.close(resolve));
  await drafts.close();
  log.info({}, "stopped");
});

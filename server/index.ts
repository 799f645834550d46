/**
 * The site's server: Express, with Remix behind it (remix-handler.ts), serving the build from
 * `npm run build`. It does what must happen before Remix, or for every answer: client addresses,
 * timeouts, limits and the form-post rules, protective headers, one address per path,
 * precompressed assets, the page cache, JSON logs and a graceful stop.
 * docs/decisions/0008-own-express-server.md says why each piece is here.
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
import { pageVariants } from "~/page-variants.server";
import { version } from "../package.json";
import { canonicalPath } from "./canonical-path";
import { describeConfig, parseConfig, privacyFacts, proxyExpectedButUntrusted } from "./config";
import { createDraftStore } from "./drafts";
import { formPosts } from "./form-posts";
import { createFunnel, lastDays } from "./funnel";
import { funnelPage } from "./funnel-page";
import { createLeadInbox } from "./lead-inbox";
import { createLogger, requestLogger } from "./log";
import { createMetrics } from "./metrics";
import { createPageCache } from "./page-cache";
import { clientKey, createRateLimits } from "./rate-limits";
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
// SITE_URL widened the old cross-site check; ours reads Fetch Metadata, else the host, and needs it no more (0032).
if (process.env.SITE_URL) log.warn({ variable: "SITE_URL" }, "config_variable_unused");
if (proxyExpectedButUntrusted(config)) log.warn({ host: config.host, variable: "TRUST_PROXY", see: "docs/operations.md#behind-a-proxy" }, "proxy_not_trusted");
// Node's own warnings would print plain text on stderr: keep the log JSON-only.
process.removeAllListeners("warning").on("warning", (warning) => log.warn({ err: warning }, "node_warning"));

const BUILD = path.resolve("build/index.js");
const importBuild = (): Promise<ServerBuild> => import(`${pathToFileURL(BUILD).href}?t=${Date.now()}`);
let build = await importBuild();

const limits = createRateLimits(config.redisUrl, log);
// Metrics only with METRICS_PORT; the gauges read the queue's figures when scraped.
const metrics = config.metricsPort ? createMetrics(routePaths(build.routes), () => inbox.stats()) : undefined;
const inbox = createLeadInbox(config, log, metrics?.events);
try {
  await inbox.start(); // picks up whatever was pending when the server last stopped
} catch (error) {
  // A store that cannot be read stops the start, untouched (decision 0012).
  log.error({ file: config.leadsDb, error: (error as Error).message }, "lead_store_unusable");
  process.exit(1);
}
const drafts = createDraftStore({ redisUrl: config.redisUrl, log });
const funnel = createFunnel({
  file: config.funnelDb,
  redisUrl: config.redisUrl,
  log,
  counted: metrics?.counted,
});
const privacy = privacyFacts(config);
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
      privacy,
      bookingUrl: config.bookingUrl,
      log,
      countVisit: () => Promise.resolve(),
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
app.use(compression());
const publicFiles = express.static("public", { maxAge: "1h", index: false, redirect: false });
// Pages have no extension: only paths that look like files cost a look in public/.
app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()));

const posts = formPosts({ limits, log, events: metrics?.posts });
app.use((req, res, next) => (ACTION_METHODS.has(req.method) ? posts(req, res, next) : next()));
app.all(
  "*",
  remixHandler(config.dev ? async () => build : build, config.dev ? "development" : "production", (req, res) => ({
    clientAddress: req.ip,
    submitLead: (lead) => inbox.submit(res.locals.form, lead),
    serving: () => !stopping,
    // What a request saves is charged to its client, as its rate limits are (decision 0034).
    drafts: drafts.forClient(clientKey(req.ip)),
    privacy,
    bookingUrl: config.bookingUrl,
    log,
    countVisit: (request, event, source) => funnel.count(request, event, source),
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
const noop = () => undefined;
const REDIRECT_HEADERS = [...PROTECTIVE.flat(), "content-security-policy", COMMON_CSP, "cache-control", "public, max-age=3600", "content-length", "0"];
const REFUSAL_HEADERS = [
  ...PROTECTIVE.flat(),
  "content-security-policy",
  COMMON_CSP,
  "cache-control",
  "private, no-store",
  "content-type",
  "text/plain; charset=utf-8",
];

/** A 301 to the request's one address (the headers every answer carries, built once). */
function moved(req: IncomingMessage, res: ServerResponse, location: string) {
  try {
    res.writeHead(301, [...REDIRECT_HEADERS, "location", location, ...(secure(req) ? HSTS : [])]);
  } catch {
    // Node's parser refuses what a header could not carry; should one get through, refuse it too.
    res.writeHead(400, [...REFUSAL_HEADERS, "content-length", "0"]);
  }
  res.end();
}

/**
 * Every request: its log line, then, before Express, what needs none of its checks: an odd
 * address of a path answered with a 301 to its canonical one (canonical-path.ts), a page path in
 * odd case with a 301 to its own, a page from the page cache (rendered into it on a miss). The
 * cache takes only GET and HEAD for the exact path of a page, which already passes every check of
 * reject-malformed.ts but the Host, checked here; a kept page carries the protective headers and
 * the CSP, and HSTS is added here. Everything else is Express's, and so is a page not for keeping.
 */
function handle(req: IncomingMessage, res: ServerResponse) {
  logRequest(req, res, noop);
  const url = req.url ?? "";
  if (url[0] !== "/" || !wellFormedHost(req.headers)) return void app(req, res); // Express refuses it
  const mark = url.indexOf("?");
  const path = mark === -1 ? url : url.slice(0, mark);
  const canonical = canonicalPath(path);
  const target = canonical === path ? url : canonical + (mark === -1 ? "" : url.slice(mark));
  const route = config.dev ? null : pages.route(req.method, target);
  if (route !== null && "redirect" in route) return moved(req, res, route.redirect);
  if (canonical !== path) {
    if (req.method === "GET" || req.method === "HEAD") return moved(req, res, target);
    // No form posts to an odd address: refused unread (the connection closes), never an action.
    if (req.method === "POST") return void res.writeHead(404, [...REFUSAL_HEADERS, "content-length", "9", "connection", "close"]).end("Not found");
    return void app(req, res); // 405
  }
  if (route === null) return void app(req, res);
  const page = pages.lookup(route.key);
  if (page === undefined) return void app(req, res);
  if (!(page instanceof Promise)) return pages.send(req, res, page, secure(req) ? HSTS : []);
  page.then(
    (kept) => (kept === undefined ? app(req, res) : pages.send(req, res, kept, secure(req) ? HSTS : [])),
    (error: unknown) => {
      log.error({ err: error, method: req.method, path }, "error");
      app(req, res); // Remix renders it for this request
    },
  );
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
const metricsServer = metrics
  ?.listen(config.metricsPort!, config.host, async () => funnelPage(await funnel.read(lastDays(30))))
  .catch((error: unknown) => {
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
  await funnel.close();
  log.info({}, "stopped");
});

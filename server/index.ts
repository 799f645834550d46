/** The site's server: Express with Remix behind it (decision 0008). Top to bottom: settings, stores, page cache, a request's path, listen, stop. */
import { existsSync, watch } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { broadcastDevReady, createRequestHandler as createRemixHandler, type ServerBuild } from "@remix-run/node";
import closeWithGrace from "close-with-grace";
import compression from "compression";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import { FUNNEL_PATH } from "~/funnel/visit";
import { PRIVATE_QUERY_PARAMS } from "~/utils/cache-headers";
import { pageVariants } from "~/page-variants.server";
import { version } from "../package.json";
import { oneAddress } from "./canonical-path";
import { type Config, describeConfig, parseConfig, privacyFacts, proxyExpectedButUntrusted } from "./config";
import { type Db, openDb, type StoreUnusable } from "./db";
import { createDraftStore } from "./drafts";
import { formPosts } from "./form-posts";
import { deviceOfAgent, importCounts, lastDays, openFunnel } from "./funnel";
import { funnelBeacon } from "./funnel-beacon";
import { funnelLinks, LINK_PATH } from "./funnel-link";
import { funnelPage } from "./funnel-report";
import { createLeadInbox } from "./lead-inbox";
import { scheduleCrmOutcomes } from "./leads/crm-outcomes";
import { outcomes } from "./leads/outcomes";
import { VERSION } from "./leads/store";
import { createLogger, flushLog, output, requestLogger } from "./log";
import { createMetrics } from "./metrics";
import { everyAnswersHeaders, PROTECTIVE_HEADERS, sendPlain } from "./headers";
import { keptPagesFirst } from "./kept-pages";
import { countLandings } from "./landings";
import { createPageCache } from "./page-cache";
import { addressCodes, clientKey, createRateLimits } from "./rate-limits";
import { rejectMalformed } from "./reject-malformed";
import { remixHandler } from "./remix-handler";
import { routePaths } from "./route-paths";
import { liveSources } from "./source-lists";

process.env.NODE_ENV ??= "production"; // before the build (and React) is loaded
const log = createLogger();
let config: Config;
try {
  config = parseConfig(process.env, version);
} catch (error) {
  createLogger(output(2)).error({ error: (error as Error).message }, "config_invalid");
  process.exit(1);
}
if (proxyExpectedButUntrusted(config)) log.warn({ host: config.host, variable: "TRUST_PROXY", see: "docs/operations.md#behind-a-proxy" }, "proxy_not_trusted");
// Node's own warnings would print plain text on stderr: keep the log JSON-only.
process.removeAllListeners("warning").on("warning", (warning) => log.warn({ err: warning }, "node_warning"));
function fail(fields: object, event: string): never {
  log.error(fields, event);
  return process.exit(1);
}

const BUILD = path.resolve("build/index.js");
const importBuild = (): Promise<ServerBuild> => import(`${pathToFileURL(BUILD).href}?t=${Date.now()}`);
let build = await importBuild();

// One database for everything (decision 0046); on SQLite the funnel's counts have a file of their own.
const countsFile = () => openDb({ file: config.funnelDb }, { synchronous: "NORMAL", version: 1 });
let db: Db, countsDb: Db;
try {
  db = openDb({ databaseUrl: config.databaseUrl, file: config.leadsDb }, { version: VERSION });
  countsDb = config.databaseUrl ? db : countsFile();
} catch (error) {
  fail({ store: (error as StoreUnusable).where, error: (error as Error).message }, "lead_store_unusable");
}
const limits = createRateLimits(db, log);
const where = { container: config.container, store: config.databaseUrl ? "postgresql" : config.container };
const metrics = config.metricsPort ? createMetrics([...routePaths(build.routes), FUNNEL_PATH], () => inbox.stats(), where) : undefined;
const addressCode = addressCodes();
const clientCode = (req: express.Request) => addressCode(clientKey(req.ip));
const inbox = createLeadInbox(config, db, log, addressCode, metrics?.events);
try {
  await inbox.start();
} catch (error) {
  fail({ store: db.where, error: (error as Error).message }, "lead_store_unusable");
}
// One container becoming several: funnel.db's counts move into PostgreSQL, once.
if (config.databaseUrl && existsSync(config.funnelDb)) {
  const file = countsFile();
  const counters = await importCounts(file, db)
    .catch((error: unknown) => log.warn({ err: error }, "funnel_not_moved"))
    .finally(() => file.close());
  if (counters) log.warn({ from: config.funnelDb, to: db.where, counters }, "funnel_moved_into_postgresql");
}
const drafts = createDraftStore({ db, log });
// The campaigns and sites counted by: the settings' and the store's, read again while serving (`leads -- campaigns|sites`).
const sources = await liveSources(db, config.sources, log);
// What became of the leads is kept in the lead store (decision 0053); with Zoho CRM it is read from there, hourly.
const funnel = openFunnel({ db: countsDb, log, counted: metrics?.counted, settings: sources.settings, outcomes: outcomes(db).read });
const crmOutcomes = config.delivery.zoho && scheduleCrmOutcomes(db, config.delivery.zoho, config.delivery.timeoutMs, log);
let stopping = false;
const context = { serving: () => !stopping, privacy: privacyFacts(config), bookingUrl: config.bookingUrl, zar: config.zar, log, sources: sources.settings };
// Public pages kept as compressed bytes (decision 0014), none in development. A page renders as a GET of its own,
// with no visitor's headers, cookie, Host or address.
const pagePaths = config.dev ? [] : routePaths(build.routes, { pagesOnly: true });
const renderPage = createRemixHandler(build, "production");
const pageCache = createPageCache({
  pagePaths,
  variants: pageVariants,
  privateParams: PRIVATE_QUERY_PARAMS,
  commonHeaders: PROTECTIVE_HEADERS,
  render: (key) =>
    renderPage(new Request(new URL(key, "http://localhost")), {
      ...context,
      clientAddress: undefined,
      submitLead: () => Promise.reject(new Error("a page render takes no leads")),
      drafts,
      countVisit: () => Promise.resolve(),
    }),
});

const app = express().disable("x-powered-by").set("trust proxy", config.trustProxy).set("query parser", "simple");
const landings = countLandings({
  pagePaths,
  settings: sources.settings,
  trust: app.get("trust proxy fn"),
  addressCode,
  funnel,
  log,
  counted: metrics?.counted,
});

// A request's path: the HTTP server's listeners, then Express's middleware, in order. The whole request within 20 s:
// app/forms/failed-send.ts's SEND_DEADLINE_MS counts on it.
const server = createServer({ headersTimeout: 10_000, requestTimeout: 20_000, connectionsCheckingInterval: 1_000, keepAliveTimeout: 5_000 });
if (metrics) server.on("request", metrics.timeRequests);
server.on("request", requestLogger(log));
server.on("request", landings.count);
server.on("request", keptPagesFirst(pageCache, app));
app.use(everyAnswersHeaders({ dev: config.dev }));
app.use(rejectMalformed(app.get("trust proxy fn")));
app.use(oneAddress(new Set(pagePaths)));
app.use(
  "/build",
  expressStaticGzip("public/build", {
    enableBrotli: true,
    orderPreference: ["br", "gz"],
    serveStatic: { immutable: true, maxAge: "1y", index: false, redirect: false },
  }),
  (_req, res) => sendPlain(res, 404, "Not found"),
);
app.use(compression());
const publicFiles = express.static("public", { maxAge: "1h", index: false, redirect: false });
// Pages have no extension: only paths that look like files cost a look in public/.
app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()));
app.post("*", formPosts({ limits, log, events: metrics?.formPosts, siteOrigins: config.siteOrigins }));
app.post(
  FUNNEL_PATH,
  funnelBeacon(sources.settings, (req, request, event, source) => funnel.count(request, event, source, clientCode(req))),
);
app.get(
  `${LINK_PATH}:token`,
  funnelLinks(db, () => funnel.read(lastDays(30))),
);
app.all(
  "*",
  remixHandler(config.dev ? async () => build : build, config.dev ? "development" : "production", (req, res) => ({
    ...context,
    clientAddress: req.ip,
    submitLead: (lead) => inbox.submit(res.locals.form, lead, deviceOfAgent(req.get("user-agent") ?? "", req.get("sec-ch-ua-mobile"))),
    drafts: drafts.forClient(clientCode(req)),
    countVisit: (request, event, source) => funnel.count(request, event, source, clientCode(req)),
  })),
);
// A short answer and one JSON line, never a stack trace.
app.use(((error, req, res, _next) => {
  const status = Number((error as { status?: unknown }).status);
  const known = status >= 400 && status < 500;
  if (!known) log.error({ err: error, method: req.method, path: req.path }, "error");
  if (res.headersSent) return void res.destroy();
  sendPlain(res, known ? status : 500, known ? "Bad request" : "Something went wrong");
}) as express.ErrorRequestHandler);

server.once("error", (error) => fail({ err: error, port: config.port }, "listen_failed"));
const metricsServer = metrics
  ?.listen(config.metricsPort!, config.host, async () => funnelPage(await funnel.read(lastDays(30))))
  .catch((error: unknown) => fail({ err: error, port: config.metricsPort }, "listen_failed"));
server.listen(config.port, config.host, () => {
  log.info({ ...describeConfig(config), address: server.address() }, "start");
  if (config.dev) void reloadBuild().then(() => watch(path.dirname(BUILD), reloadOnVersion));
});
// `npm run dev`: each build/version.txt Remix's dev server writes loads the new build and reloads the browser.
async function reloadBuild() {
  build = await importBuild();
  await broadcastDevReady(build).catch((error: unknown) => log.warn({ err: error }, "dev_ready_failed"));
}
let reloading: NodeJS.Timeout | undefined;
function reloadOnVersion(_event: string, file: string | null) {
  if (file !== "version.txt") return;
  clearTimeout(reloading);
  reloading = setTimeout(() => void reloadBuild().catch((error: unknown) => log.error({ err: error }, "dev_reload_failed")), 50);
}

// The stop, at most 15 s from signal to exit (decision 0040): what is in flight gets DRAIN_MS, then is cut; the
// database's limits (db.ts) and the log's flush fit in what is left; past STOP_LIMIT_MS, `shutdown_error`, exit 1.
const [DRAIN_MS, LOG_DRAIN_MS, STOP_LIMIT_MS] = [8_000, 500, 13_500];
const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;
let stopSignal: NodeJS.Signals | undefined;
const stop = closeWithGrace(
  {
    delay: STOP_LIMIT_MS,
    skip: [...STOP_SIGNALS],
    logger: { error: (error: unknown) => log.error(typeof error === "string" ? { reason: error } : { err: error }, "shutdown_error") },
  },
  async ({ signal, err }) => {
    stopping = true;
    if (err) log.error({ err }, "uncaught_error");
    log.info({ signal: signal ?? stopSignal }, "stopping");
    const drained = AbortSignal.timeout(DRAIN_MS);
    const closed = new Promise((resolve) => server.close(resolve));
    const sweep = setInterval(() => server.closeIdleConnections(), 200);
    const metricsListener = await metricsServer;
    const cut = () => [server, metricsListener].forEach((listener) => listener?.closeAllConnections());
    drained.addEventListener("abort", cut, { once: true });
    await closed;
    clearInterval(sweep);
    sources.close();
    await Promise.all([
      inbox.close(drained),
      drafts.close(),
      landings.close().then(funnel.close),
      crmOutcomes?.stop(),
      metricsListener && new Promise((resolve) => metricsListener.close(resolve)),
    ]);
    await Promise.all([db.close(), countsDb !== db && countsDb.close()]);
    log.info({}, "stopped");
    await flushLog(log, LOG_DRAIN_MS);
  },
);
// SIGTERM or SIGINT starts the stop, once: `npm start` passes on a signal its whole process group got,
// which close-with-grace would take for a second one, "exit now".
for (const name of STOP_SIGNALS)
  process.on(name, () => {
    if (stopping) return;
    stopSignal = name;
    void stop.close();
  });

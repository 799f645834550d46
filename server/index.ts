/**
 * The site's server: Express with Remix's adapter, serving the build from `npm run build`. It does
 * what must happen before Remix, or for every answer: client addresses, timeouts, limits and the
 * form-post rules, protective headers, precompressed assets, the page cache, JSON logs and a
 * graceful stop. docs/decisions/0008-own-express-server.md says why each piece is here.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import closeWithGrace from "close-with-grace";
import compression from "compression";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import helmet from "helmet";
import { pino } from "pino";
import { version } from "../package.json";
import { describeConfig, parseConfig } from "./config";
import { createDraftStore } from "./drafts";
import { formPosts } from "./form-posts";
import { createLeadInbox } from "./lead-inbox";
import { createLogger, requestLogger } from "./log";
import { createPageCache } from "./page-cache";
import { createRateLimits } from "./rate-limits";
import { rejectMalformed } from "./reject-malformed";

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
const inbox = createLeadInbox(config, limits, log);
try {
  await inbox.start(); // picks up whatever was pending when the server last stopped
} catch (error) {
  log.error({ error: (error as Error).message }, "lead_store_locked");
  process.exit(1);
}
const pages = createPageCache();
const drafts = createDraftStore({ redisUrl: config.redisUrl, log });
const PERMISSIONS_POLICY = "accelerometer=(), browsing-topics=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), midi=(), payment=(), serial=(), usb=()";

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", config.trustProxy);
app.set("query parser", "simple");
app.use(requestLogger(log));
app.use((req, res, next) => {
  res.locals.cspNonce = randomBytes(16).toString("base64");
  res.set("Permissions-Policy", PERMISSIONS_POLICY);
  if (req.secure) res.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  next();
});
app.use(
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        fontSrc: ["'self'"],
        // Development only: Remix's live reload talks to its dev server over a websocket.
        connectSrc: config.dev ? ["'self'", "ws:"] : ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
      },
    },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: false, // set above, only over HTTPS
    xFrameOptions: { action: "deny" },
  }),
);
app.use(rejectMalformed(app.get("trust proxy fn")));

// Fingerprinted assets, with brotli and gzip files made at build time (scripts/build-server.mjs).
app.use(
  "/build",
  expressStaticGzip("public/build", { enableBrotli: true, orderPreference: ["br", "gz"], serveStatic: { immutable: true, maxAge: "1y", index: false, redirect: false } }),
  (_req, res) => void res.status(404).type("text/plain").send("Not found"),
);
app.use(compression());
const publicFiles = express.static("public", { maxAge: "1h", index: false, redirect: false });
// Pages have no extension: only paths that look like files cost a look in public/.
app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()));

app.post("*", formPosts({ limits, log }));
app.get("*", (req, res, next) => {
  const key = pages.keyFor(req.method, req.originalUrl);
  const hit = key === null ? undefined : pages.get(key, res.locals.cspNonce);
  if (!hit) return next();
  res.status(hit.status);
  for (const [name, value] of hit.headers) res.setHeader(name, value);
  res.setHeader("Content-Length", hit.body.length);
  res.end(hit.body);
});
app.all(
  "*",
  createRequestHandler({
    build: config.dev ? async () => build : build,
    mode: config.dev ? "development" : "production",
    getLoadContext: (req, res) => {
      const key = req.method === "GET" && !config.dev ? pages.keyFor(req.method, req.originalUrl) : null;
      return {
        cspNonce: res.locals.cspNonce,
        keepPage: key === null ? undefined : (page) => pages.put(key, page),
        clientAddress: req.ip,
        form: res.locals.form,
        submitLead: (lead) => inbox.submit(res.locals.form, lead),
        health: () => ({ status: "ok", version: config.version, leads: inbox.stats() }),
        drafts,
        log,
      };
    },
  }),
);
// Whatever got here is an error: a short answer, one JSON line, never a stack trace.
app.use(((error, req, res, _next) => {
  const status = Number((error as { status?: unknown }).status);
  const known = status >= 400 && status < 500;
  if (!known) log.error({ err: error, method: req.method, path: req.path }, "error");
  if (res.headersSent) return void res.destroy();
  res.status(known ? status : 500).set("Cache-Control", "private, no-store").type("text/plain").send(known ? "Bad request" : "Something went wrong");
}) as express.ErrorRequestHandler);

// Headers within 10 s, the whole request within 20 s (checked every second), idle keep-alive 5 s.
const server = createServer({ headersTimeout: 10_000, requestTimeout: 20_000, connectionsCheckingInterval: 1_000, keepAliveTimeout: 5_000 }, app);
server.once("error", (error) => {
  log.error({ err: error, port: config.port }, "listen_failed");
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  log.info({ ...describeConfig(config), address: server.address() }, "start");
  if (config.dev) void import("./dev").then(({ watchBuild }) => watchBuild(BUILD, importBuild, (next) => (build = next), log));
});

closeWithGrace({ delay: 15_000, logger: { error: (error: unknown) => log.error({ err: error }, "shutdown_error") } }, async ({ signal }) => {
  log.info({ signal }, "stopping");
  // Stop accepting; close keep-alive sockets as soon as each is idle (requests in flight finish).
  const sweep = setInterval(() => server.closeIdleConnections(), 200);
  await new Promise((resolve) => server.close(resolve));
  clearInterval(sweep);
  await inbox.close();
  await limits.close();
  await drafts.close();
  log.info({}, "stopped");
});

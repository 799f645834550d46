import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newRun, owned } from "../../scripts/test-run.mjs";

/** The access key the tests configure: it must never appear in anything the site serves. */
export const TEST_ACCESS_KEY = "test-key-3b7f0c1e-never-in-html";

/** The run's id (scripts/test-run.mjs), set once in the runner: its workers and the sites inherit it. */
const run = (process.env.AGENCY_TEST_RUN ??= newRun());

const SPAN = 400;
/** The first range of SPAN ports from 3100 up in which nothing listens now (the kernel's tables, IPv4 and IPv6): the run's own. */
function freeBase(): number {
  const taken = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = existsSync(table) ? readFileSync(table, "utf8").split("\n").slice(1) : [];
    for (const [, local, , state] of lines.map((line) => line.trim().split(/\s+/))) if (state === "0A") taken.add(parseInt(local!.split(":").pop()!, 16)); // 0A: LISTEN
  }
  for (let base = 3100; base + SPAN < 20_000; base += SPAN) if (!Array.from({ length: SPAN }, (_, i) => base + i).some((port) => taken.has(port))) return base;
  throw new Error("no free range of 400 ports below 20000 for the end-to-end tests");
}

/**
 * Ports from E2E_PORT_BASE (the first free range, chosen once by the runner): +0 to +3 sites, +10
 * and +11 their metrics, +90 and +91 fake services, +200 to +398 tests/ops' own servers
 * (`opsPort(n)`), +399 the full-disk site's readiness.
 */
const base = Number((process.env.E2E_PORT_BASE ??= String(freeBase())));
export const opsPort = (n: number) => {
  // Past 198 a port is another run's (its sites' metrics at +10, +11): two runs would collide.
  if (!Number.isInteger(n) || n < 0 || n > 198) throw new Error(`opsPort(${n}): n is 0 to 198`);
  return base + 200 + n;
};

/** The sites' data: a folder per run, since Playwright starts the sites before global setup could empty one. */
export const e2eRoot = join(tmpdir(), "agency-site-e2e");
export const e2eDir = join(e2eRoot, run);

/** Playwright starts a site with a shell: exec, so it is Playwright's child and dies with it. */
const command = (...program: Parameters<typeof owned>) =>
  `exec ${owned(...program)
    .flat()
    .map((word) => `"${word}"`)
    .join(" ")}`;

function site(port: number, formServicePort: number | null, extra: Record<string, string> = {}) {
  const dataDir = join(e2eDir, `site-${port}`);
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    FORM_TIMEOUT_MS: "4000",
    // Behind a pretend proxy: each test sends its own X-Forwarded-For and so has its own
    // rate-limit bucket (tests/support/fixtures.ts).
    TRUST_PROXY: "1",
    DATA_DIR: dataDir,
    OUTBOX_FILE: join(dataDir, "outbox.jsonl"),
    ...(formServicePort ? { FORM_ACCESS_KEY: TEST_ACCESS_KEY, FORM_ENDPOINT: `http://127.0.0.1:${formServicePort}/submit` } : {}),
    ...extra,
  };
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: extra.METRICS_PORT ? `http://127.0.0.1:${extra.METRICS_PORT}/metrics` : null,
    formServiceUrl: formServicePort ? `http://127.0.0.1:${formServicePort}` : null,
    env,
    // The built server on this very node (Node 24), without npm in between: it starts faster.
    command: command(process.execPath, ["build/server/index.js"]),
    ready: `http://127.0.0.1:${port}/healthz`,
  };
}

/**
 * One site per Playwright project (each with its own fake form service), one with no key (the
 * outbox), a booking page and a rand rate, and one whose lead store cannot be written (full-disk-site.mjs).
 */
export const sites = {
  js: site(base, base + 90, { METRICS_PORT: String(base + 10) }),
  noJs: site(base + 1, base + 91, { METRICS_PORT: String(base + 11) }),
  outbox: site(base + 2, null, { BOOKING_URL: "https://cal.com/kopano-digital/intro", USD_ZAR_RATE: "18.40", USD_ZAR_RATE_DATE: "2026-11-30" }),
  unwritable: {
    ...site(base + 3, null, { READY_PORT: String(base + 399) }),
    command: command(process.execPath, ["tests/support/full-disk-site.mjs"], "TERM"),
    ready: `http://127.0.0.1:${base + 399}/`,
  },
};

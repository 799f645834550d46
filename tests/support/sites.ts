import { tmpdir } from "node:os";
import { join } from "node:path";

/** The access key the tests configure: it must never appear in anything the site serves. */
export const TEST_ACCESS_KEY = "test-key-3b7f0c1e-never-in-html";

/**
 * Ports: E2E_PORT_BASE (default 3100) and the next three for sites, +10 and +11 for the two
 * browser sites' metrics, +90 and +91 for fake services; tests/ops start their own servers at +200
 * to +398 (`opsPort(n)`, n up to 198); the full-disk site answers its readiness check on +399.
 */
const base = Number(process.env.E2E_PORT_BASE ?? 3100);
export const opsPort = (n: number) => base + 200 + n;

/**
 * Where the sites keep their data (lead database, outbox): a fresh folder for every run, since
 * Playwright starts the sites before global setup could empty one. The runner sets the run's name
 * once; its workers inherit it. Global setup removes earlier runs' folders.
 */
export const e2eRoot = join(tmpdir(), "agency-site-e2e", String(base));
export const e2eDir = join(e2eRoot, (process.env.AGENCY_E2E_RUN ??= `run-${Date.now()}`));

function site(port: number, formServicePort: number | null, extra: Record<string, string> = {}) {
  const metricsPort = extra.METRICS_PORT ? Number(extra.METRICS_PORT) : null;
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
    ...extra,
  };
  if (formServicePort) {
    env.FORM_ACCESS_KEY = TEST_ACCESS_KEY;
    env.FORM_ENDPOINT = `http://127.0.0.1:${formServicePort}/submit`;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : null,
    formServiceUrl: formServicePort ? `http://127.0.0.1:${formServicePort}` : null,
    env,
    // The built server on this very node (Node 24), without npm in between: it starts faster.
    command: `"${process.execPath}" build/server/index.js`,
    ready: `http://127.0.0.1:${port}/healthz`,
  };
}

/** The site whose store opens and then cannot be written: a full tmpfs (full-disk-site.mjs). */
function fullDiskSite(port: number) {
  const s = site(port, null, { READY_PORT: String(base + 399) });
  return { ...s, command: `"${process.execPath}" tests/support/full-disk-site.mjs`, ready: `http://127.0.0.1:${base + 399}/` };
}

/**
 * One site per Playwright project (each with its own fake form service), one with no key (the
 * outbox) and the only one with a booking page (BOOKING_URL), and one whose lead store cannot be
 * written (its data folder is a full file system).
 */
export const sites = {
  js: site(base, base + 90, { METRICS_PORT: String(base + 10) }),
  noJs: site(base + 1, base + 91, { METRICS_PORT: String(base + 11) }),
  outbox: site(base + 2, null, { BOOKING_URL: "https://cal.com/kopano-digital/intro" }),
  unwritable: fullDiskSite(base + 3),
};

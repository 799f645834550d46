import { tmpdir } from "node:os";
import { join } from "node:path";

/** The access key the tests configure: it must never appear in anything the site serves. */
export const TEST_ACCESS_KEY = "test-key-3b7f0c1e-never-in-html";

/** Where the sites without a key write their outbox; global setup empties it before a run. */
export const e2eDir = join(tmpdir(), "agency-site-e2e");

function site(port: number, formServicePort: number | null, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    FORM_TIMEOUT_MS: "4000",
    // Behind a pretend proxy: each test sends its own X-Forwarded-For and so has its own
    // rate-limit bucket (tests/support/fixtures.ts).
    TRUST_PROXY: "1",
    OUTBOX_FILE: join(e2eDir, `outbox-${port}.jsonl`),
    LEADS_FILE: join(e2eDir, `leads-${port}.jsonl`),
    ...extra,
  };
  if (formServicePort) {
    env.FORM_ACCESS_KEY = TEST_ACCESS_KEY;
    env.FORM_ENDPOINT = `http://127.0.0.1:${formServicePort}/submit`;
  }
  return { url: `http://127.0.0.1:${port}`, formServiceUrl: formServicePort ? `http://127.0.0.1:${formServicePort}` : null, env };
}

/**
 * Ports: E2E_PORT_BASE (default 3100) and the next three for sites, +90 and +91 for fake services;
 * tests/ops start their own servers at +200 to +299 (`opsPort(n)`).
 */
const base = Number(process.env.E2E_PORT_BASE ?? 3100);
export const opsPort = (n: number) => base + 200 + n;

/**
 * One site per Playwright project (each with its own fake form service), one with no key (the
 * outbox), and one whose lead store cannot be written (its parent path is a file, even for root).
 */
export const sites = {
  js: site(base, base + 90),
  noJs: site(base + 1, base + 91),
  outbox: site(base + 2, null),
  unwritable: site(base + 3, null, { LEADS_FILE: "/dev/null/leads.jsonl" }),
};

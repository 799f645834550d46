import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The unit tests' temporary folders (lead stores, outboxes, PostgreSQL clusters: hundreds a run) go in one
 * folder of this run's, removed when the run ends: the test processes start after this and take
 * their `os.tmpdir()` from TMPDIR.
 */
export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), "agency-site-unit-"));
  // Passable, not readable, by others: the tests' PostgreSQL runs as the postgres user when they
  // run as root (tests/support/postgres.ts), in a folder of its own in here.
  chmodSync(dir, 0o711);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

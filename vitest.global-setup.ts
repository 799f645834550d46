import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The unit tests' temporary folders (lead stores, outboxes, Redis files: hundreds a run) go in one
 * folder of this run's, removed when the run ends: the test processes start after this and take
 * their `os.tmpdir()` from TMPDIR.
 */
export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), "agency-site-unit-"));
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

// Sums vitest's and Playwright's JSON reports into the closing line CI reads, and exits non-zero
// when anything failed (including a step before the tests, passed in as `stepStatus`). A check
// that is not a test runner (types, lint, nothing left running) counts as one failed test when it
// fails (`failedSteps`), so the line never reads "0 failed" for a failed run.
import { existsSync, readFileSync } from "node:fs";

const [unitFile, e2eFile, stepStatus = "0", failedSteps = "0"] = process.argv.slice(2);
let passed = 0;
let failed = Number(failedSteps);
let skipped = 0;

if (existsSync(unitFile)) {
  const unit = JSON.parse(readFileSync(unitFile, "utf8"));
  passed += unit.numPassedTests;
  // A file that fails before its tests run (an import, a hook) fails no test: count it as one.
  failed += unit.numFailedTests + (unit.numFailedTests === 0 ? unit.numFailedTestSuites : 0);
  skipped += unit.numPendingTests + unit.numTodoTests;
} else failed += 1;

if (existsSync(e2eFile)) {
  const { stats, errors = [] } = JSON.parse(readFileSync(e2eFile, "utf8"));
  passed += stats.expected;
  // Errors outside a test (global setup, a site that would not start) count as one failure each.
  failed += stats.unexpected + stats.flaky + errors.length;
  skipped += stats.skipped;
} else failed += 1;

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || stepStatus !== "0" ? 1 : 0);

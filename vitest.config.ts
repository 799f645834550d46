import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  test: {
    include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "scripts/**/*.test.ts", "tests/support/**/*.test.ts"],
    environment: "node",
    globalSetup: "./vitest.global-setup.ts",
    // scripts/test.sh runs these beside Playwright on two cores; the queue tests drive real
    // PostgreSQL clusters and SQLite locks and wait with limits of their own, which 5 s undercuts there.
    testTimeout: 20_000,
  },
});

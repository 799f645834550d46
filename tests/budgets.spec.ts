/** The home page's JavaScript within perf/budgets.json, as `npm run perf` counts it; an estimate's page without the wizard's code (decision 0024). */
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
// Shared with `npm run perf`, so the test and the report count bytes the same way.
import { pageScripts } from "../scripts/perf/page-scripts.mjs";

const budgets = JSON.parse(readFileSync(new URL("../perf/budgets.json", import.meta.url), "utf8")) as { homeJsBytes: number };

type ScriptTransfer = { url: string; status: number; encoding: string; bodyBytes: number };

test.describe("budgets", { tag: "@needs-js" }, () => {
  test("the home page's JavaScript, compressed as sent to a browser, stays within perf/budgets.json", async ({ browser, baseURL }) => {
    const scripts = (await pageScripts(browser, `${baseURL}/`)) as ScriptTransfer[];
    const total = scripts.reduce((sum, s) => sum + s.bodyBytes, 0);
    const listing = scripts.map((s) => `${s.bodyBytes} ${s.encoding} ${new URL(s.url).pathname}`).join("\n");
    expect(scripts.length, listing).toBeGreaterThan(3);
    // Chromium accepts brotli: every script comes as the brotli file made at build time.
    for (const s of scripts) expect([s.status, s.encoding], s.url).toEqual([200, "br"]);
    // The forms' rules (zod) load only when a visitor reaches for a form (app/forms/README.md).
    expect(listing).not.toMatch(/\/(rules|schema)-[A-Z0-9]+\.js/);
    expect(total, `home page scripts (bytes on the wire):\n${listing}`).toBeLessThanOrEqual(budgets.homeJsBytes);
  });

  test("an estimate's page loads none of the wizard: neither its form nor its texts", async ({ browser, baseURL, request }) => {
    const scripts = (await pageScripts(browser, `${baseURL}/estimate?service=softwareDev&timeframe=urgent&complexity=complex`)) as ScriptTransfer[];
    expect(scripts.length).toBeGreaterThan(3);
    for (const { url } of scripts) {
      const code = await (await request.get(new URL(url).pathname)).text();
      expect(code, url).not.toContain("Send My Request");
      expect(code, url).not.toContain(calculatorText.headings[1]);
    }
  });
});

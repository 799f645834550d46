/**
 * Every script a page loads, as a browser fetches it (Chromium sends its usual Accept-Encoding):
 * URL, content encoding and the compressed bytes that crossed the wire. Used by `npm run perf`
 * and by tests/budgets.spec.ts, so both count the same way.
 *
 * The page is loaded in a fresh context (empty cache) and given time to go quiet (network idle),
 * so scripts loaded after `load` (hydration, route chunks) count too; scripts fetched only when a
 * visitor interacts (the form checks) do not.
 */
export async function pageScripts(browser, url) {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const page = await context.newPage();
    const responses = [];
    page.on("response", (response) => {
      const request = response.request();
      if (request.resourceType() === "script" || /\.m?js(\?|$)/.test(new URL(request.url()).pathname)) responses.push(response);
    });
    await page.goto(url, { waitUntil: "load" });
    await page.waitForLoadState("networkidle");
    const scripts = [];
    for (const response of responses) {
      const sizes = await response.request().sizes();
      const headers = await response.allHeaders();
      scripts.push({
        url: response.url(),
        status: response.status(),
        encoding: headers["content-encoding"] ?? "identity",
        bodyBytes: sizes.responseBodySize,
        headerBytes: sizes.responseHeadersSize,
      });
    }
    return scripts;
  } finally {
    await context.close();
  }
}

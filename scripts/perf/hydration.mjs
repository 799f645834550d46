/**
 * When a visitor sees a page and when its JavaScript takes over, in Chromium as it is and as a
 * slow phone (Lighthouse's mobile figures: 4x CPU, 150 ms, 1.6 Mbps down). A fresh context per
 * load, 9 loads each, medians. "Ready" is when Remix's router exists, i.e. hydration has begun.
 * Not a budget; decisions 0010 and 0014 quote it.  Usage: node scripts/perf/hydration.mjs http://127.0.0.1:3400/
 */
import { chromium } from "@playwright/test";
import { CHROME_FLAGS } from "./chrome.mjs";
import { median } from "./stats.mjs";

const url = process.argv[2] ?? "http://127.0.0.1:3400/";
const slowPhone = { cpu: 4, network: { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 } };

const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || "/usr/bin/chromium", args: CHROME_FLAGS.filter((f) => f !== "--headless") });
try {
  for (const [name, throttle] of [
    ["unthrottled", null],
    ["slow phone", slowPhone],
  ]) {
    const paint = [];
    const ready = [];
    for (let i = 0; i < 9; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      if (throttle) {
        const cdp = await context.newCDPSession(page);
        await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle.cpu });
        await cdp.send("Network.emulateNetworkConditions", throttle.network);
      }
      await page.addInitScript(() => {
        const poll = setInterval(() => {
          if (!("__remixRouter" in window)) return;
          clearInterval(poll);
          Object.assign(window, { readyAt: performance.now() });
        }, 2);
      });
      await page.goto(url);
      // On a busy machine hydration can begin before the first paint: wait for both.
      await page.waitForFunction(() => "readyAt" in window && performance.getEntriesByName("first-contentful-paint").length > 0);
      const [fcp, readyAt] = await page.evaluate(() => [performance.getEntriesByName("first-contentful-paint")[0].startTime, window.readyAt]);
      paint.push(fcp);
      ready.push(readyAt);
      await context.close();
    }
    console.log(`${name}: first contentful paint ${Math.round(median(paint))} ms, hydration begun ${Math.round(median(ready))} ms (medians of 9)`);
  }
} finally {
  await browser.close();
}

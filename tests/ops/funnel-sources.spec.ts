/**
 * A flood of made-up sources from one address against a real server, with no proxy in front (the
 * socket's address counts): it cannot crowd another address's campaign out of the funnel
 * (decision 0041). Server on opsPort 197; clients on distinct loopback addresses.
 */
import { request } from "node:http";
import { expect, test } from "@playwright/test";
import { dataDir, leadsCommand, serve } from "../support/server";
import { opsPort } from "../support/sites";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

/** The wizard's beacon for step 2 (countSteps in app/funnel/visit.ts) from `localAddress`, with a landing. */
function beacon(url: string, landing: string, localAddress: string): Promise<number> {
  const body = new URLSearchParams({ event: "2", "visit.landing": landing }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/steps`,
      {
        method: "POST",
        localAddress,
        headers: {
          "Sec-Fetch-Site": "same-origin",
          "User-Agent": CHROME,
          "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
          "Content-Length": Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test("sixty made-up sources from one address leave another address's real campaign counted as itself", async () => {
  const dir = dataDir();
  const server = serve(opsPort(197), { DATA_DIR: dir, CAMPAIGNS: "spring" });
  try {
    await server.listening;
    // Sixty sources the rule names (common utm words, combined): the kind a flood would have to use.
    const sources = ["google", "bing", "yahoo", "facebook", "instagram", "linkedin"];
    const mediums = ["cpc", "ppc", "cpm", "paid", "display", "banner", "email", "social", "organic", "referral"];
    for (const source of sources)
      for (const medium of mediums) expect(await beacon(server.url, `?utm_source=${source}&utm_medium=${medium} `, "127.0.0.2")).toBe(204);
    expect(await beacon(server.url, "?utm_source=google&utm_medium=cpc&utm_campaign=spring ", "127.0.0.3")).toBe(204);
    const { days } = JSON.parse((await leadsCommand(dir)("funnel", "--json", "--days", "1")).stdout);
    const bySource = days[0].bySource as Record<string, { reached: Record<string, number> }>;
    expect(days[0].reached[2]).toBe(61);
    expect(bySource["google/cpc/spring"]?.reached[2]).toBe(1);
    expect(bySource.other?.reached[2]).toBe(57);
  } finally {
    server.kill();
  }
});

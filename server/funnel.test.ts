import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { startRedis } from "../tests/support/redis";
import { quietLog, until } from "../tests/support/quiet-log";
import { runCli } from "./leads/cli";
import { dayOf, deviceOfAgent, hitOf, lastDays, openFunnel, SOURCES_A_DAY, summarise } from "./funnel";
import { funnelPage } from "./funnel-page";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const folder = () => mkdtemp(join(tmpdir(), "funnel-"));
const headers = (agent: string, extra: Record<string, string> = {}) => new Headers({ "user-agent": agent, ...extra });

describe("what one request counts", () => {
  it("the user agent's device class, and the source checked again (anything else is direct)", () => {
    expect(hitOf("3", headers(CHROME), "newsletter/email/spring")).toEqual({ event: "3", device: "desktop", source: "newsletter/email/spring" });
    expect(hitOf("3", headers(CHROME), "<script>")).toEqual({ event: "3", device: "desktop", source: "direct" });
    expect(hitOf("sent", headers("Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36"), "direct")?.device).toBe("phone");
    expect(hitOf("sent", headers("Mozilla/5.0 (X11; Linux x86_64)", { "sec-ch-ua-mobile": "?1" }), "direct")?.device).toBe("phone");
    expect(deviceOfAgent("Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)")).toBe("tablet");
    expect(deviceOfAgent("Mozilla/5.0 (Linux; Android 14; SM-X910) Safari/537.36")).toBe("tablet");
  });
  it("a known bot, or a client that gives no user agent, counts nothing", () => {
    expect(hitOf("2", headers("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"), "direct")).toBeNull();
    expect(hitOf("2", headers("curl/8.5.0"), "direct")).toBeNull();
    expect(hitOf("2", new Headers(), "direct")).toBeNull();
  });
});

describe("the agency's day", () => {
  it("is Johannesburg's: 23:00 UTC is already the next day there", () => {
    expect(dayOf(Date.UTC(2026, 10, 25, 21, 59))).toBe("2026-11-25");
    expect(dayOf(Date.UTC(2026, 10, 25, 22, 0))).toBe("2026-11-26");
    expect(lastDays(3, Date.UTC(2026, 0, 1, 12))).toEqual(["2025-12-30", "2025-12-31", "2026-01-01"]);
  });
});

describe("the counters in the data folder's SQLite file", () => {
  it("keep counts by day, event, device and source, and nothing else; they survive a reopen", async () => {
    const file = join(await folder(), "funnel.db");
    const now = Date.UTC(2026, 10, 26, 10);
    const first = openFunnel({ file, log: quietLog });
    await first.add({ event: "2", device: "phone", source: "direct" }, now);
    await first.add({ event: "2", device: "phone", source: "direct" }, now);
    await first.add({ event: "3", device: "desktop", source: "google.com" }, now);
    await first.add({ event: "sent", device: "desktop", source: "google.com" }, now - 86_400_000);
    await first.close();
    const again = openFunnel({ file, log: quietLog });
    const [yesterday, today] = await again.read(["2026-11-25", "2026-11-26"]);
    expect(today).toMatchObject({ date: "2026-11-26", reached: { 2: 2, 3: 1, 4: 0, 5: 0 }, sent: 0, contactSent: 0 });
    expect(today!.byDevice.phone.reached[2]).toBe(2);
    expect(today!.bySource["google.com"]!.reached[3]).toBe(1);
    expect(yesterday).toMatchObject({ date: "2026-11-25", sent: 1 });
    await again.close();
    // The file holds counters only: no column could take an address, an agent or an id.
    const bytes = await readFile(file);
    expect(bytes.includes("Mozilla")).toBe(false);
  });

  it("a day keeps a bounded number of sources: made-up ones beyond it count as other", async () => {
    const funnel = openFunnel({ file: join(await folder(), "funnel.db"), log: quietLog });
    for (let i = 0; i < SOURCES_A_DAY + 20; i++) await funnel.add({ event: "2", device: "phone", source: `spam${i}.example` });
    await funnel.add({ event: "2", device: "phone", source: "spam1.example" }); // a known one still counts by name
    const [today] = await funnel.read(lastDays(1));
    expect(today!.reached[2]).toBe(SOURCES_A_DAY + 21);
    expect(Object.keys(today!.bySource)).toHaveLength(6); // the top five by name, the rest as other
    expect(today!.bySource["spam1.example"]!.reached[2]).toBe(2);
    await funnel.close();
  });
});

describe("with Redis", () => {
  it("two containers count into one total, and a count Redis cannot take is kept locally and added when read", async ({ onTestFinished }) => {
    const redis = await startRedis();
    onTestFinished(() => redis.stop());
    const connect = () => new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500 }).on("error", () => undefined);
    const [a, b] = [connect(), connect()];
    const ready = () => until(() => a.status === "ready" && b.status === "ready");
    await ready();
    onTestFinished(() => void [a, b].forEach((c) => c.disconnect()));
    const one = openFunnel({ file: join(await folder(), "funnel.db"), redis: a, log: quietLog });
    const two = openFunnel({ file: join(await folder(), "funnel.db"), redis: b, log: quietLog });
    await one.add({ event: "2", device: "phone", source: "direct" });
    await two.add({ event: "2", device: "desktop", source: "direct" });
    await two.add({ event: "3", device: "desktop", source: "direct" });
    for (const funnel of [one, two]) expect((await funnel.read(lastDays(1)))[0]).toMatchObject({ reached: { 2: 2, 3: 1 } });
    await redis.stop();
    await two.add({ event: "4", device: "desktop", source: "direct" }); // Redis is gone: into two's own file
    await redis.restart();
    await ready();
    await one.add({ event: "2", device: "phone", source: "direct" });
    expect((await two.read(lastDays(1)))[0]).toMatchObject({ reached: { 2: 1, 3: 0, 4: 1 } }); // Redis restarted empty, plus two's own
    await one.close();
    await two.close();
  });
});

describe("reading", () => {
  it("the top sources of the range by name, the rest summed as other; days oldest first with zeros", () => {
    const counts = ["a", "b", "c", "d", "e", "f", "g"].map((source, i) => ({
      day: "2026-11-26",
      event: "2" as const,
      device: "phone" as const,
      source,
      n: 10 - i,
    }));
    const [empty, day] = summarise(["2026-11-25", "2026-11-26"], counts);
    expect(empty).toMatchObject({ date: "2026-11-25", reached: { 2: 0 } });
    expect(Object.keys(day!.bySource).sort()).toEqual(["a", "b", "c", "d", "e", "other"]);
    expect(day!.bySource.other!.reached[2]).toBe(5 + 4);
  });

  it("the operator's page: the steps as an SVG chart with the drop-off, for 7 and 30 days, by device and source, no script", () => {
    const days = summarise(lastDays(30), [
      { day: dayOf(Date.now()), event: "2", device: "phone", source: "direct", n: 10 },
      { day: dayOf(Date.now()), event: "3", device: "phone", source: "direct", n: 6 },
      { day: dayOf(Date.now()), event: "contact", device: "desktop", source: "direct", n: 2 },
    ]);
    const html = funnelPage(days);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain("Last 7 days");
    expect(html).toContain("Last 30 days");
    expect(html).toContain("−40%");
    expect(html).toContain("By device");
    expect(html).toContain("By source");
    expect(html).not.toContain("<script");
  });

  it("npm run leads -- funnel prints a table and a bar per step; --json the days", async () => {
    const dir = await folder();
    const funnel = openFunnel({ file: join(dir, "funnel.db"), log: quietLog });
    for (const event of ["2", "2", "3", "sent"] as const) await funnel.add({ event, device: "phone", source: "direct" });
    await funnel.close();
    const lines: string[] = [];
    expect(await runCli(["funnel"], { DATA_DIR: dir }, (line) => lines.push(line))).toBe(0);
    expect(lines.filter((line) => /^\d{4}-\d\d-\d\d /.test(line))).toHaveLength(7);
    expect(lines.find((line) => line.startsWith("Step 2"))).toMatch(/█{40} 2$/);
    expect(lines.find((line) => line.startsWith("Step 3"))).toMatch(/█{20} +1 +\(50% of Step 2\)$/);
    const json: string[] = [];
    expect(await runCli(["funnel", "--json", "--days", "2"], { DATA_DIR: dir }, (line) => json.push(line))).toBe(0);
    const { days } = JSON.parse(json.join("\n"));
    expect(days).toHaveLength(2);
    expect(days[1]).toMatchObject({ date: dayOf(Date.now()), reached: { 2: 2, 3: 1, 4: 0, 5: 0 }, sent: 1, contactSent: 0 });
    expect(await runCli(["funnel", "--days", "x"], { DATA_DIR: dir }, () => undefined)).toBe(2);
  });
});

describe("a flood of made-up sources", () => {
  it("with Redis, grows the day's set of sources no further than its bound", async ({ onTestFinished }) => {
    const redis = await startRedis();
    onTestFinished(() => redis.stop());
    const client = new Redis(redis.url).on("error", () => undefined);
    onTestFinished(() => void client.disconnect());
    const funnel = openFunnel({ file: join(await folder(), "funnel.db"), redis: client, log: quietLog });
    for (let i = 0; i < SOURCES_A_DAY + 30; i++) await funnel.add({ event: "2", device: "phone", source: `made-up${i}.example` });
    expect(await client.scard(`funnel:${dayOf(Date.now())}:sources`)).toBe(SOURCES_A_DAY);
    expect((await funnel.read(lastDays(1)))[0]!.reached[2]).toBe(SOURCES_A_DAY + 30);
    await funnel.close();
  });
});

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { quietLog, recordingLog } from "../tests/support/quiet-log";
import { leadDatabases } from "../tests/support/engines";
import { type Db, openDb } from "./db";
import {
  type Counted,
  dayOf,
  deviceOfAgent,
  emptySteps,
  hitOf,
  importCounts,
  lastDays,
  NEW_SOURCES_A_CLIENT,
  openFunnel,
  SOURCES_A_DAY,
  summarise,
} from "./funnel";
import { FUNNEL_KEEP_DAYS } from "~/content/privacy";
import { funnelCsv, funnelPage, funnelReport, NAMED_SOURCES, namedSources, sourceName, sourceWorth } from "./funnel-report";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const settings = { names: new Set(["spring"]), sites: [] };
const direct = { kind: "direct" } as const;
const folder = () => mkdtemp(join(tmpdir(), "funnel-"));
const headers = (agent: string, extra: Record<string, string> = {}) => new Headers({ "user-agent": agent, ...extra });
// The operator's command, loaded by the tests that run it.
const runCli: typeof import("./leads/cli").runCli = async (...args) => (await import("./leads/cli")).runCli(...args);

const { place, open, cluster } = leadDatabases();
/** funnel.db as the server opens it: its own file, commits not waited onto the disk; closed when the test ends. */
const sqlite = (file: string) => {
  const db = openDb({ file }, { synchronous: "NORMAL" });
  onTestFinished(() => db.close());
  return db;
};
/** PostgreSQL as a container opens it: two of them on one place are two containers. */
const postgres = async () => open(await place("postgres"));
/** A funnel's database: a data folder's funnel.db, or PostgreSQL's. */
const ENGINES = { sqlite: async () => sqlite(join(await folder(), "funnel.db")), postgres };
const funnelOn = (db: Db) => openFunnel({ db, log: quietLog, settings });
/** The day's counts at step 2, by source. */
async function bySource(funnel: ReturnType<typeof openFunnel>) {
  const [today] = await funnel.read(lastDays(1));
  return Object.fromEntries(Object.entries(today!.bySource).map(([key, steps]) => [key, steps.reached[2]]));
}

describe("what one request counts", () => {
  it("the user agent's device class, and the source's key", () => {
    const spring = { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" } as const;
    expect(hitOf("3", headers(CHROME), spring)).toEqual({ event: "3", device: "desktop", source: "newsletter/email/spring" });
    expect(hitOf("3", headers(CHROME), { kind: "search", name: "google" })).toEqual({ event: "3", device: "desktop", source: "search:google" });
    expect(hitOf("sent", headers("Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36"), direct)?.device).toBe("phone");
    expect(hitOf("sent", headers("Mozilla/5.0 (X11; Linux x86_64)", { "sec-ch-ua-mobile": "?1" }), direct)?.device).toBe("phone");
    expect(deviceOfAgent("Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)")).toBe("tablet");
    expect(deviceOfAgent("Mozilla/5.0 (Linux; Android 14; SM-X910) Safari/537.36")).toBe("tablet");
  });
});

describe("the agency's day", () => {
  it("is Johannesburg's: 23:00 UTC is already the next day there", () => {
    expect(dayOf(Date.UTC(2026, 10, 25, 21, 59))).toBe("2026-11-25");
    expect(dayOf(Date.UTC(2026, 10, 25, 22, 0))).toBe("2026-11-26");
    expect(lastDays(3, Date.UTC(2026, 0, 1, 12))).toEqual(["2025-12-30", "2025-12-31", "2026-01-01"]);
  });
});

describe.each(Object.keys(ENGINES) as (keyof typeof ENGINES)[])("the counters on %s", (engine) => {
  it("a batch keeps each address's rule of new sources, and sums the rest of a source once it is kept", async () => {
    const funnel = funnelOn(await ENGINES[engine]());
    for (let i = 1; i <= NEW_SOURCES_A_CLIENT; i++) await funnel.add({ event: "landed", device: "phone", source: `google/m${i}` }, "x");
    const day = dayOf(Date.now());
    const landing = (client: string, n: number) => ({ day, hit: { event: "landed", device: "phone", source: "google/m9" } as const, client, n });
    expect(await funnel.addBatch([landing("x", 2), landing("y", 1), landing("z", 4), landing("w", 3)])).toEqual([]);
    const [today] = await funnel.read(lastDays(1));
    expect([today!.bySource["google/m9"]?.landed, today!.bySource.other?.landed]).toEqual([8, 2]); // x had no new source left
  });

  it("one address adds a few new sources a day, then its new ones count as other; another address's campaign still counts by name", async () => {
    const funnel = funnelOn(await ENGINES[engine]());
    for (let i = 0; i < 60; i++) await funnel.add({ event: "2", device: "phone", source: `google/cpc/made-up${i}` }, "flooder");
    await funnel.add({ event: "2", device: "phone", source: "google/cpc/made-up1" }, "flooder"); // one it added still counts by name
    await funnel.add({ event: "2", device: "phone", source: "google/cpc/spring" }, "visitor");
    const [today] = await funnel.read(lastDays(1));
    expect(today!.reached[2]).toBe(62);
    expect(today!.bySource["google/cpc/spring"]!.reached[2]).toBe(1);
    expect(today!.bySource["google/cpc/made-up1"]!.reached[2]).toBe(2);
    expect(today!.bySource.other!.reached[2]).toBe(60 - NEW_SOURCES_A_CLIENT);
  });

  it("a day keeps a bounded number of sources whatever the addresses; past it, the kinds of place and the agency's own campaigns still count by name, not their contents and terms in common words", async () => {
    const funnel = funnelOn(await ENGINES[engine]());
    for (let i = 0; i < SOURCES_A_DAY + 20; i++) await funnel.add({ event: "2", device: "phone", source: `google/m${i}` }, `client${i}`);
    await funnel.add({ event: "2", device: "phone", source: "google/m1" }, "late"); // a known one still counts by name
    const always = ["newsletter/email/spring", "social:linkedin", "site:example.co.za", "direct", "google/cpc"];
    for (const source of always) await funnel.add({ event: "2", device: "phone", source }, `late ${source}`);
    // Not its content or term in common words: with them one listed campaign would make thousands of sources.
    await funnel.add({ event: "2", device: "phone", source: "newsletter/email/spring/banner" }, "late content");
    const [today] = await funnel.read(lastDays(1));
    expect(today!.reached[2]).toBe(SOURCES_A_DAY + 27);
    expect(today!.bySource["google/m1"]!.reached[2]).toBe(2);
    expect(today!.bySource.other!.reached[2]).toBe(21);
    for (const source of always) expect(today!.bySource[source]?.reached[2], source).toBe(1);
    expect(Object.keys(today!.bySource)).toHaveLength(SOURCES_A_DAY + 1 + always.length);
  });
});

it("the days past FUNNEL_KEEP_DAYS are deleted", async () => {
  const db = await ENGINES.sqlite();
  const ago = (days: number) => Date.now() - days * 86_400_000;
  for (const days of [FUNNEL_KEEP_DAYS + 1, FUNNEL_KEEP_DAYS]) await funnelOn(db).add({ event: "2", device: "phone", source: "direct" }, undefined, ago(days));
  const kept = (await funnelOn(db).read(lastDays(FUNNEL_KEEP_DAYS + 2))).filter((day) => day.reached[2] > 0);
  expect(kept.map((day) => day.date)).toEqual([dayOf(ago(FUNNEL_KEEP_DAYS))]);
});

/** A data folder's funnel.db, as a server on SQLite leaves it. */
async function folderCounts(counts: Record<string, number>) {
  const file = join(await folder(), "funnel.db");
  const funnel = funnelOn(sqlite(file));
  for (const [source, n] of Object.entries(counts)) for (let i = 0; i < n; i++) await funnel.add({ event: "2", device: "phone", source });
  await funnel.close();
  return file;
}

describe("one container becoming several", () => {
  it("importCounts adds a data folder's counts to PostgreSQL's, once, and empties the file", async () => {
    const file = await folderCounts({ "search:google": 3, "newsletter/email/spring": 4 });
    const shared = await postgres();
    await funnelOn(shared).add({ event: "2", device: "phone", source: "search:google" });
    expect(await importCounts(sqlite(file), shared)).toBe(2);
    expect(await importCounts(sqlite(file), shared)).toBe(0);
    expect(await bySource(funnelOn(shared))).toEqual({ "search:google": 4, "newsletter/email/spring": 4 });
    expect(await bySource(funnelOn(sqlite(file)))).toEqual({});
  });
});

describe("on PostgreSQL, shared by containers", () => {
  it("a count PostgreSQL cannot take is dropped with a warning, never thrown; counting goes on once it is back", async () => {
    const { log, count } = recordingLog();
    const funnel = openFunnel({ db: await postgres(), log, settings });
    await funnel.add({ event: "2", device: "phone", source: "direct" });
    await cluster().kill();
    await funnel.add({ event: "3", device: "phone", source: "direct" });
    expect(count("funnel_not_counted")).toBe(1);
    await cluster().restart();
    await funnel.add({ event: "4", device: "phone", source: "direct" });
    expect((await funnel.read(lastDays(1)))[0]).toMatchObject({ reached: { 2: 1, 3: 0, 4: 1 } });
  });
});

describe("reading", () => {
  it("every source by its key, days oldest first with zeros", () => {
    const counts = ["a", "b", "search:google"].map((source, i) => ({ day: "2026-11-26", event: "2" as const, device: "phone" as const, source, n: 10 - i }));
    const [empty, day] = summarise(["2026-11-25", "2026-11-26"], counts);
    expect(empty).toMatchObject({ date: "2026-11-25", reached: { 2: 0 }, bySource: {} });
    expect(Object.fromEntries(Object.entries(day!.bySource).map(([key, steps]) => [key, steps.reached[2]]))).toEqual({ a: 10, b: 9, "search:google": 8 });
  });

  it("a source in the words a marketer reads", () => {
    const names = {
      "newsletter/email/spring": "newsletter · email · spring",
      "newsletter//spring": "newsletter · – · spring",
      "linkedin/social/spring/video": "linkedin · social · spring · video",
      "google/cpc/spring//banner": "google · cpc · spring · – · banner",
      newsletter: "newsletter",
      "google/cpc": "google · cpc",
      "search:google": "Google search",
      "social:linkedin": "LinkedIn (social)",
      "assistant:chatgpt": "ChatGPT (AI assistant)",
      "site:example.co.za": "A link on example.co.za",
      link: "A link on another site",
      direct: "Direct",
      other: "Other (not named)",
    };
    expect(Object.keys(names).map(sourceName)).toEqual(Object.values(names));
  });

  it("what each source brought, per day and over the range: landings, steps, sends, contact messages, sends per step-2 visit, clients won and their value; the most visits at step 2 and messages first", () => {
    const [d1, d2] = ["2026-11-25", "2026-11-26"];
    const count = (day: string, event: Counted, source: string, n: number) => ({ day, event, device: "phone" as const, source, n });
    const won = (day: string, source: string, value: number | null, outcome: "won" | "lost" = "won") => ({ day, source, device: "phone", outcome, value });
    const days = summarise(
      [d1, d2],
      [
        count(d1, "landed", "newsletter/email/spring", 9),
        count(d1, "2", "newsletter/email/spring", 3),
        count(d1, "3", "newsletter/email/spring", 2),
        count(d1, "sent", "newsletter/email/spring", 1),
        count(d2, "2", "newsletter/email/spring", 1),
        count(d2, "sent", "newsletter/email/spring", 2), // a visit that began the day before
        count(d2, "contact", "newsletter/email/spring", 1),
        count(d2, "2", "search:google", 4),
        count(d2, "contact", "direct", 2),
      ],
      [won(d1, "newsletter/email/spring", 45_000), won(d2, "newsletter/email/spring", null), won(d2, "newsletter/email/spring", 9_000, "lost")],
    );
    const [newsletter, google, direct] = sourceWorth(days);
    expect(google).toMatchObject({ key: "search:google", name: "Google search", landed: 0, step2: 4, sent: 0, contactSent: 0, sendRate: 0 });
    expect(newsletter).toEqual({
      key: "newsletter/email/spring",
      name: "newsletter · email · spring",
      step2: 4,
      sent: 3,
      contactSent: 1,
      sendRate: 0.75,
      landed: 9,
      step3: 2,
      step4: 0,
      step5: 0,
      won: 2,
      value: 45_000,
      days: [
        { date: d1, landed: 9, step2: 3, sent: 1, contactSent: 0, sendRate: 1 / 3, won: 1, value: 45_000 },
        { date: d2, landed: 0, step2: 1, sent: 2, contactSent: 1, sendRate: 2, won: 1, value: 0 },
      ],
    });
    expect(direct).toMatchObject({ key: "direct", step2: 0, contactSent: 2, sendRate: null, days: [{ sendRate: null }, { contactSent: 2 }] });
  });

  it("a report names the first sources and sums the rest in one row, apart from other", () => {
    const counts = Array.from({ length: NAMED_SOURCES + 3 }, (_, i) => ({
      day: "2026-11-26",
      event: "2" as const,
      device: "phone" as const,
      source: i === 0 ? "other" : `site:s${String(i).padStart(2, "0")}.example`,
      n: 20 - i,
    }));
    const { named, rest } = namedSources(sourceWorth(summarise(["2026-11-26"], counts)));
    expect(named.map((row) => row.key)).toEqual([
      "other",
      ...Array.from({ length: NAMED_SOURCES - 1 }, (_, i) => `site:s${String(i + 1).padStart(2, "0")}.example`),
    ]);
    expect(rest).toMatchObject({ sources: 3, name: "3 more sources, summed", keys: ["site:s10.example", "site:s11.example", "site:s12.example"] });
    const rows = funnelReport(summarise(["2026-11-26"], counts)).find((table) => table.kind === "sources")!.rows;
    expect(rows.slice(-2).map((row) => row.slice(0, 3))).toEqual([
      ["3 more sources, summed", "0", String(10 + 9 + 8)],
      ["  2026-11-26", "0", "27"],
    ]);
    const oneLeft = namedSources(sourceWorth(summarise(["2026-11-26"], counts.slice(0, NAMED_SOURCES + 1))));
    expect([oneLeft.named.length, oneLeft.rest]).toEqual([NAMED_SOURCES + 1, undefined]); // a row of one is named, not summed
  });

  it("the operator's page is the command's tables for 7 and 30 days, as HTML with no script: landings and the steps with what each kept, by device, each source named in words and day by day, the rest summed and said so", () => {
    const today = dayOf(Date.now());
    const yesterday = dayOf(Date.now() - 86_400_000);
    const count = (day: string, event: Counted, source: string, n: number, device: "phone" | "desktop" = "phone") => ({ day, event, device, source, n });
    const won = { day: today, source: "newsletter/email/spring", device: "desktop", outcome: "won", value: 45_000 } as const;
    const days = summarise(
      lastDays(30),
      [
        count(today, "landed", "newsletter/email/spring", 20),
        count(yesterday, "2", "newsletter/email/spring", 2),
        count(today, "2", "newsletter/email/spring", 1),
        count(today, "3", "newsletter/email/spring", 3, "desktop"),
        count(today, "sent", "newsletter/email/spring", 2),
        count(today, "contact", "newsletter/email/spring", 1),
        count(today, "2", "site:example.co.za", 1),
        count(today, "contact", "direct", 2),
        ...Array.from({ length: NAMED_SOURCES }, (_, i) => count(today, "2", `site:s${i}.example`, 1)),
      ],
      [won],
    );
    const html = funnelPage(days);
    expect(html).not.toContain("<script");
    const cells = (row: string) =>
      [...row.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((m) => m[1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))));
    const tables = [...html.matchAll(/<table class="(\w+)"[^>]*>(.*?)<\/table>/g)].map(([, kind, body]) => ({
      kind,
      rows: [...body!.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((m) => cells(m[1]!)),
    }));
    // What each source brought first: what marketing opens the page for.
    const order = ["sources", "days", "steps", "devices"];
    const report = (n: number) =>
      funnelReport(days.slice(-n))
        .map(({ kind, head, rows }) => ({ kind, rows: [head, ...rows.map(([name, ...rest]) => [name!.trim(), ...rest])] }))
        .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    expect(tables).toEqual([...report(7), ...report(30)]);
    expect(html).toMatch(/<h1>Calculator funnel<\/h1><p>Figures as of \d{1,2} \w{3} \d{4}, \d\d:\d\d \(Africa\/Johannesburg\)\.<\/p>/);
    expect(funnelPage(days, { until: Date.UTC(2026, 11, 15, 10) })).toContain("; this link works until 15 Dec 2026, 12:00.");

    const [sources, week, steps, devices] = tables.map((table) => table.rows);
    expect(week![0]).toEqual(["Day", "Landed", "Step 2", "Step 3", "Step 4", "Step 5", "Sent", "Contact", "Won", "Value (R)"]);
    expect(week!.at(-1)).toEqual(["Total", "20", "14", "3", "0", "0", "2", "3", "1", "45,000"]);
    expect(steps!.slice(1).map(([step, bar, visits, kept]) => [step, bar!.length, visits, kept])).toEqual([
      ["Landed", 40, "20", ""],
      ["Step 2", 28, "14", "70% of Landed"],
      ["Step 3", 6, "3", "21% of Step 2"],
      ["Step 4", 0, "0", "0% of Step 3"],
      ["Step 5", 0, "0", ""],
      ["Sent", 4, "2", ""],
      ["Won", 2, "1", "20% of Sent and Contact"],
    ]);
    expect(devices!.slice(1).map((row) => row.join(" "))).toEqual(["phone 20 14 0 0 0 2 3 0 0", "tablet 0 0 0 0 0 0 0 0 0", "desktop 0 0 3 0 0 0 0 1 45,000"]);
    const newsletter = sources!.findIndex(([name]) => name === "newsletter · email · spring");
    expect(sources!.slice(newsletter, newsletter + 3).map((row) => row.join("|"))).toEqual([
      "newsletter · email · spring|20|3|3|0|0|2|67%|1|1|45,000",
      `${yesterday}|0|2|0|0|0|0|0%|0|0|0`,
      `${today}|20|1|3|0|0|2|200%|1|1|45,000`,
    ]);
    expect(sources![0]).toEqual(["Source / day", "Landed", "Step 2", "Step 3", "Step 4", "Step 5", "Sent", "Step 2 → sent", "Contact", "Won", "Value (R)"]);
    expect(sources).toContainEqual(["Direct", "0", "0", "0", "0", "0", "0", "–", "2", "0", "0"]);
    expect(sources).toContainEqual(["A link on example.co.za", "0", "1", "0", "0", "0", "0", "0%", "0", "0", "0"]);
    expect(sources).toContainEqual(["3 more sources, summed", "0", "3", "0", "0", "0", "0", "0%", "0", "0", "0"]);
    expect(html).toContain(`The ${NAMED_SOURCES} sources with the most visits at step 2 and contact messages by name; the other 3 summed`);
  });

  it("funnel --csv: a header, then a row a day, source and device with any figure, a client won under its lead's device; a comma or a quote quoted as RFC 4180 has it", () => {
    const [d1, d2] = ["2026-11-25", "2026-11-26"];
    const count = (day: string, event: Counted, source: string, device: "phone" | "desktop", n: number) => ({ day, event, device, source, n });
    const days = summarise(
      [d1, d2],
      [
        count(d1, "landed", "newsletter/email/spring", "phone", 7),
        count(d1, "2", "newsletter/email/spring", "phone", 3),
        count(d1, "sent", "newsletter/email/spring", "desktop", 1),
        count(d2, "contact", 'a,b/say "hi"', "phone", 1),
      ],
      [{ day: d1, source: "newsletter/email/spring", device: "desktop", outcome: "won", value: 12_500.5 }],
    );
    expect(days[0]!.rows).toEqual([
      { source: "newsletter/email/spring", device: "desktop", ...emptySteps(), sent: 1, won: 1, value: 12_500.5 },
      { source: "newsletter/email/spring", device: "phone", ...emptySteps(), landed: 7, reached: { 2: 3, 3: 0, 4: 0, 5: 0 } },
    ]);
    expect(funnelCsv(days)).toEqual([
      "day,source,source name,device,landed,step 2,step 3,step 4,step 5,sent,contact,won,value (rand)\r",
      "2026-11-25,newsletter/email/spring,newsletter · email · spring,desktop,0,0,0,0,0,1,0,1,12500.5\r",
      "2026-11-25,newsletter/email/spring,newsletter · email · spring,phone,7,3,0,0,0,0,0,0,0\r",
      '2026-11-26,"a,b/say ""hi""","a,b · say ""hi""",phone,0,0,0,0,0,0,1,0,0\r',
    ]);
  });

  it("npm run -s leads -- funnel prints a row a day, a bar per step with what it kept of the step before, and what each source brought, in words and day by day; --json the days", async () => {
    const dir = await folder();
    const funnel = funnelOn(sqlite(join(dir, "funnel.db")));
    const yesterday = Date.now() - 86_400_000;
    const spring = "newsletter/email/spring";
    await funnel.add({ event: "2", device: "phone", source: spring }, undefined, yesterday);
    await funnel.addBatch([{ day: dayOf(Date.now()), hit: { event: "landed", device: "phone", source: spring }, client: undefined, n: 2 }]);
    for (const event of ["2", "2", "3", "sent", "contact"] as const) await funnel.add({ event, device: "phone", source: spring });
    await funnel.add({ event: "2", device: "phone", source: "search:google" });
    await funnel.close();
    const lines: string[] = [];
    expect(await runCli(["funnel"], { DATA_DIR: dir }, (line) => lines.push(line))).toBe(0);
    expect(lines.filter((line) => /^\d{4}-\d\d-\d\d /.test(line))).toHaveLength(7);
    expect(lines.find((line) => line.startsWith("Step 2"))).toMatch(/█{40} +4 +200% of Landed$/);
    expect(lines.find((line) => line.startsWith("Step 3"))).toMatch(/█{10} +1 +25% of Step 2$/);
    const from = lines.findIndex((line) => line.startsWith("What each source brought, last 7 days"));
    expect(
      lines.slice(from + 1).map((line) =>
        line
          .trim()
          .split(/\s{2,}/)
          .join("|"),
      ),
    ).toEqual([
      "Source / day|Landed|Step 2|Step 3|Step 4|Step 5|Sent|Step 2 → sent|Contact|Won|Value (R)",
      "newsletter · email · spring|2|3|1|0|0|1|33%|1|0|0",
      `${dayOf(yesterday)}|0|1|0|0|0|0|0%|0|0|0`,
      `${dayOf(Date.now())}|2|2|1|0|0|1|50%|1|0|0`,
      "Google search|0|1|0|0|0|0|0%|0|0|0",
      `${dayOf(Date.now())}|0|1|0|0|0|0|0%|0|0|0`,
    ]);
    const json: string[] = [];
    expect(await runCli(["funnel", "--json", "--days", "2"], { DATA_DIR: dir }, (line) => json.push(line))).toBe(0);
    const { days } = JSON.parse(json.join("\n"));
    expect(days).toMatchObject([
      { date: dayOf(yesterday), reached: { 2: 1, 3: 0 } },
      { date: dayOf(Date.now()), landed: 2, reached: { 2: 3, 3: 1, 4: 0, 5: 0 }, sent: 1, contactSent: 1 },
    ]);
  });
});

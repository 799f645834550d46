/**
 * The funnel as the operator and marketing read it (decisions 0045, 0054): `funnelReport` works the tables out once, for
 * `npm run -s leads -- funnel` (`funnelText`), and for GET /funnel on the metrics port and a signed link on the public
 * one (`funnelPage`, the last 7 and 30 days, no script); `funnelCsv` is `funnel --csv`.
 */
import { sourceOfKey } from "~/funnel/source";
import { DEVICES } from "~/funnel/visit";
import { emptySteps, type FunnelDay, type Steps } from "./funnel";

/**
 * What a source brought. `sendRate`, sends per step-2 visit (null without one), is of counts, not people: a day's can pass 1.
 * `won`, `value`: its leads sent those days that became clients since, and their value in rand (decision 0053).
 */
type Worth = { landed: number; step2: number; sent: number; contactSent: number; sendRate: number | null; won: number; value: number };
/** One source over a range (`--json`'s `sources`); its other figures day by day are in `days[].bySource`. */
export type SourceWorth = Worth & {
  key: string;
  name: string;
  step3: number;
  step4: number;
  step5: number;
  days: (Worth & { date: string })[];
};

const worthOf = (s: Steps): Worth => ({
  landed: s.landed,
  step2: s.reached[2],
  sent: s.sent,
  contactSent: s.contactSent,
  sendRate: s.reached[2] > 0 ? s.sent / s.reached[2] : null,
  won: s.won,
  value: s.value,
});
const added = (all: Steps[]) =>
  all.reduce((sum, s) => {
    for (const step of [2, 3, 4, 5] as const) sum.reached[step] += s.reached[step];
    for (const figure of ["landed", "sent", "contactSent", "won", "value"] as const) sum[figure] += s[figure];
    return sum;
  }, emptySteps());
/** The sources `keys` together, each day and over the range. */
const stepsOf = (days: FunnelDay[], keys: string[]) => {
  const daily = days.map((day) => ({ date: day.date, steps: added(keys.map((key) => day.bySource[key] ?? emptySteps())) }));
  return { total: added(daily.map((day) => day.steps)), daily };
};

/** The rest are summed in one row: forged beacons can add hundreds of sources a day, and a printed page must stay a page. */
export const NAMED_SOURCES = 10;

/** Names their owners write otherwise than with a capital first letter. */
const BRANDS: Record<string, string> = {
  duckduckgo: "DuckDuckGo",
  linkedin: "LinkedIn",
  x: "X (Twitter)",
  youtube: "YouTube",
  tiktok: "TikTok",
  whatsapp: "WhatsApp",
  chatgpt: "ChatGPT",
};
const brand = (name: string) => BRANDS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

/** A source's key in a marketer's words: "newsletter · email · spring" ("–" for a value left out), "Google search", "Direct"… */
export function sourceName(key: string): string {
  const source = sourceOfKey(key);
  if (source?.kind === "campaign") {
    // A part left out before a named one shows as "–": "flyer · – · spring".
    const parts = [source.source, source.medium, source.campaign, source.content, source.term];
    return parts
      .map((part) => part ?? "–")
      .join(" · ")
      .replace(/( · –)+$/, "");
  }
  if (source?.kind === "search" || source?.kind === "social" || source?.kind === "assistant")
    return `${brand(source.name)} ${{ search: "search", social: "(social)", assistant: "(AI assistant)" }[source.kind]}`;
  if (source?.kind === "site") return `A link on ${source.host}`;
  const named: Record<string, string> = { link: "A link on another site", direct: "Direct", unknown: "Not known (no JavaScript)" };
  return named[source?.kind ?? ""] ?? "Other (not named)";
}

/** Every source of `days`, most visits at step 2 and contact messages together first, then most sends, then most landings. */
export function sourceWorth(days: FunnelDay[]): SourceWorth[] {
  const keys = [...new Set(days.flatMap((day) => Object.keys(day.bySource)))];
  const rows = keys.map((key): SourceWorth => {
    const { total, daily } = stepsOf(days, [key]);
    const { reached } = total;
    return {
      key,
      name: sourceName(key),
      ...worthOf(total),
      step3: reached[3],
      step4: reached[4],
      step5: reached[5],
      days: daily.map((day) => ({ date: day.date, ...worthOf(day.steps) })),
    };
  });
  return rows.sort((a, b) => b.step2 + b.contactSent - (a.step2 + a.contactSent) || b.sent - a.sent || b.landed - a.landed || a.name.localeCompare(b.name));
}

/** The first NAMED_SOURCES, and the rest summed as one (a single one left is named too); `keys`, each row's sources. */
export function namedSources(ranked: SourceWorth[]): { named: SourceWorth[]; rest?: { name: string; sources: number; keys: string[] } } {
  if (ranked.length <= NAMED_SOURCES + 1) return { named: ranked };
  const others = ranked.slice(NAMED_SOURCES);
  return {
    named: ranked.slice(0, NAMED_SOURCES),
    rest: { name: `${others.length} more sources, summed`, sources: others.length, keys: others.map((o) => o.key) },
  };
}

/** `rows` start with the row's name; a column headed "" is a bar. */
export type Table = { kind: "days" | "steps" | "devices" | "sources"; title: string; head: string[]; rows: string[][]; note?: string };

const STEPS = ["Landed", "Step 2", "Step 3", "Step 4", "Step 5", "Sent"];
const WON = ["Won", "Value (R)"];
const rand = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
/** Landed, steps 2-5, sent, contact, won, value: a row's figures. */
const numbers = (s: Steps) => [s.landed, s.reached[2], s.reached[3], s.reached[4], s.reached[5], s.sent, s.contactSent, s.won, s.value];
const cells = (s: Steps) => numbers(s).map((n, i) => (i === 8 ? rand.format(n) : String(n)));
const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);
/** A source's row: its figures with the sends per step-2 visit after Sent. */
const sourceCells = (s: Steps) => {
  const row = cells(s);
  return [...row.slice(0, 6), percent(worthOf(s).sendRate), ...row.slice(6)];
};

/** The report of `days`, oldest first. */
export function funnelReport(days: FunnelDay[]): Table[] {
  const range = `last ${days.length} days`;
  const total = added(days);
  // The funnel's steps in order, then the clients won of the leads sent (either form).
  const path = [...numbers(total).slice(0, 6), total.won];
  const widest = Math.max(1, ...path);
  const before = (i: number) => (i === 6 ? total.sent + total.contactSent : path[i - 1]!);
  const kept = (i: number) => (i > 0 && before(i) > 0 ? `${Math.round((path[i]! / before(i)) * 100)}% of ${i === 6 ? "Sent and Contact" : STEPS[i - 1]}` : "");
  const { named, rest } = namedSources(sourceWorth(days));
  const sources = [...named.map(({ name, key }) => ({ name, ...stepsOf(days, [key]) })), ...(rest ? [{ name: rest.name, ...stepsOf(days, rest.keys) }] : [])];
  return [
    {
      kind: "days",
      title: `The calculator's funnel, ${range} (Africa/Johannesburg)`,
      head: ["Day", ...STEPS, "Contact", ...WON],
      rows: [...days.map((day) => [day.date, ...cells(day)]), ["Total", ...cells(total)]],
    },
    {
      kind: "steps",
      title: "Step by step: visitors who landed, the visits that reached each step, and the clients won; what each kept of the step before",
      head: ["Step", "", "Visits", "Kept"],
      rows: [...STEPS, "Won"].map((step, i) => [step, "█".repeat(Math.round((path[i]! / widest) * 40)), String(path[i]), kept(i)]),
    },
    {
      kind: "devices",
      title: "By device",
      head: ["Device", ...STEPS, "Contact", ...WON],
      rows: DEVICES.map((device) => [device, ...cells(added(days.map((day) => day.byDevice[device])))]),
    },
    {
      kind: "sources",
      title: `What each source brought, ${range}: visitors who landed, visits that reached each step, requests sent, sends per step-2 visit, contact messages, clients won and their value; then each day it brought any`,
      head: ["Source / day", ...STEPS, "Step 2 → sent", "Contact", ...WON],
      rows: sources.flatMap(({ name, total, daily }) => [
        [name, ...sourceCells(total)],
        ...daily.filter(({ steps }) => numbers(steps).some((n) => n > 0)).map(({ date, steps }) => [`  ${date}`, ...sourceCells(steps)]),
      ]),
      note:
        sources.length === 0
          ? `No source brought a visitor in the ${range}.`
          : rest &&
            `The ${NAMED_SOURCES} sources with the most visits at step 2 and contact messages by name; the other ${rest.sources} summed (--json lists each).`,
    },
  ];
}

export function funnelText(days: FunnelDay[]): string[] {
  return funnelReport(days).flatMap(({ title, head, rows, note }, t) => {
    const widths = head.map((_, c) => Math.max(...[head, ...rows].map((row) => row[c]!.length)));
    const line = (row: string[]) => row.map((cell, c) => (c === 0 || head[c] === "" ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ");
    return [...(t > 0 ? [""] : []), title, ...(rows.length > 0 ? [head, ...rows].map((row) => line(row).trimEnd()) : []), ...(note ? [note] : [])];
  });
}

/** A field as RFC 4180 quotes it: in double quotes, doubled inside, when it holds a comma, a quote or a line break. */
const csvField = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
const CSV_HEAD = ["day", "source", "source name", "device", "landed", "step 2", "step 3", "step 4", "step 5", "sent", "contact", "won", "value (rand)"];

/** `funnel --csv`: a header, then a line a day, source and device with any figure (value plain, in rand). Lines end in CRLF, as RFC 4180 has it. */
export function funnelCsv(days: FunnelDay[]): string[] {
  const line = (fields: (string | number)[]) => `${fields.map((field) => csvField(String(field))).join(",")}\r`;
  const rows = days.flatMap((day) => day.rows.map((row) => [day.date, row.source, sourceName(row.source), row.device, ...numbers(row)]));
  return [line(CSV_HEAD), ...rows.map(line)];
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A table under its title, in a box that scrolls sideways where the screen is narrower than its columns (a phone). */
function htmlTable({ kind, title, head, rows, note }: Table, id: string): string {
  const cell = (text: string, c: number) =>
    c === 0 ? `<th scope="row">${escape(text.trim())}</th>` : `<td${head[c] === "" ? ' class="bar"' : ""}>${escape(text)}</td>`;
  const cells = (row: string[]) => row.map(cell).join("");
  const body = rows.map((row) => `<tr${row[0]!.startsWith(" ") ? ' class="day"' : ""}>${cells(row)}</tr>`).join("");
  const table = `<div class="wide" role="region" aria-labelledby="${id}" tabindex="0"><table class="${kind}" aria-labelledby="${id}"><thead><tr>${head.map((h) => `<th scope="col">${escape(h)}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table></div>`;
  return `<h3 id="${id}">${escape(title)}</h3>${rows.length > 0 ? table : ""}${note ? `<p>${escape(note)}</p>` : ""}`;
}

/** The page's one style, hashed by a CSP that allows nothing else (funnel-link.ts). A phone scrolls a wide table, its names kept in view; print fits A4. */
export const PAGE_STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:1rem auto;max-width:64rem;padding:0 1rem;color:#1a1a1a;background:#fff}
h3{font-size:1rem;margin:1.5rem 0 .25rem;break-after:avoid}.wide{overflow-x:auto}
table{border-collapse:collapse;margin:.25rem 0 1rem;width:100%;break-inside:avoid}table.sources{break-inside:auto}
th,td{border-bottom:1px solid #ccc;padding:.25rem .5rem;text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
th[scope=row],th:first-child{text-align:left;position:sticky;left:0;background:#fff}table.sources th[scope=row]{white-space:normal;min-width:9rem}
td.bar{text-align:left;color:#1d4ed8}tr.day th{font-weight:400;padding-left:1.5rem}.hint{display:none}
@media (max-width:48rem){.hint{display:block;font-style:italic}body{font-size:14px;padding:0 .75rem}th,td{padding:.2rem .35rem}td.bar{font-size:.45em}tr.day th{padding-left:1rem}}
@media print{.hint{display:none}body{margin:0;max-width:none;font-size:9pt}.wide{overflow:visible}th,td{padding:.1rem .25rem}th[scope=col]{white-space:normal}table.sources th[scope=row]{min-width:6rem}th:first-child{position:static}section+section{break-before:page}}
`;

const when = new Intl.DateTimeFormat("en-ZA", { timeZone: "Africa/Johannesburg", dateStyle: "medium", timeStyle: "short" });
/** Each period's tables, what marketing reads first (each source's worth) first. */
const ORDER: Table["kind"][] = ["sources", "days", "steps", "devices"];

/**
 * `days`: the last 30, oldest first. Shown on the metrics port and by a signed link on the public one (`until`: when
 * that link stops working): noindex either way. The figures first, then how to read them.
 */
export function funnelPage(days: FunnelDay[], { at = Date.now(), until }: { at?: number; until?: number } = {}): string {
  const sections = [7, 30].map((n) => {
    const tables = funnelReport(days.slice(-n)).sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
    return `<section><h2>Last ${n} days</h2>${tables.map((table) => htmlTable(table, `last${n}-${table.kind}`)).join("")}</section>`;
  });
  const asOf = `Figures as of ${when.format(at)} (Africa/Johannesburg)${until === undefined ? "" : `; this link works until ${when.format(until)}`}.`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Calculator funnel</title><style>${PAGE_STYLE}</style></head><body><h1>Calculator funnel</h1><p>${escape(asOf)}</p><p class="hint">Each table is wider than the screen: swipe it sideways for Sent, Won and Value (R).</p>${sections.join("")}<h2>How to read it</h2><p>Visitors who landed on the site from outside it (a link, a campaign, an address typed), the visits that reached each step of the calculator and sent it, and the clients won of the leads sent, counted per day (Africa/Johannesburg). Counts only: no visitor is identified. A step counts once per visit. Won counts a lead on the day it was sent, under the source and device the lead came with; Value (R) is what the agency recorded for those clients, in rand. By source, "Step 2 → sent" is the requests sent for each visit that reached step 2 (a service chosen), counted in the same days; it is not a path followed, so a day's share can pass 100% when a visit began the day before. Bots and scripts (curl, a headless browser) are not counted.</p></body></html>`;
}

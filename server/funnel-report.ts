/**
 * The funnel as the operator reads it (decision 0045): `funnelReport` works the tables out once, for `npm run -s leads
 * -- funnel` (`funnelText`) and GET /funnel on the metrics port (`funnelPage`, the last 7 and 30 days, no script).
 */
import { sourceOfKey } from "~/funnel/source";
import { DEVICES } from "~/funnel/visit";
import { emptySteps, type FunnelDay, type Steps } from "./funnel";
import { LANDINGS_A_CLIENT } from "./landings";

/** What a source brought. `sendRate`, sends per step-2 visit (null without one), is of counts, not people: a day's can pass 1. */
type Worth = { landed: number; step2: number; sent: number; contactSent: number; sendRate: number | null };
/** One source over a range (`--json`'s `sources`). */
export type SourceWorth = Worth & { key: string; name: string; days: (Worth & { date: string })[] };

const worth = (landed: number, step2: number, sent: number, contactSent: number): Worth => ({
  landed,
  step2,
  sent,
  contactSent,
  sendRate: step2 > 0 ? sent / step2 : null,
});
const sum = (of: Worth[]) => {
  const total = (figure: "landed" | "step2" | "sent" | "contactSent") => of.reduce((n, w) => n + w[figure], 0);
  return worth(total("landed"), total("step2"), total("sent"), total("contactSent"));
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
  if (source?.kind === "campaign") return [source.source, source.medium ?? (source.campaign && "–"), source.campaign].filter(Boolean).join(" · ");
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
    const daily = days.map((day) => {
      const steps = day.bySource[key] ?? emptySteps();
      return { date: day.date, ...worth(steps.landed, steps.reached[2], steps.sent, steps.contactSent) };
    });
    return { key, name: sourceName(key), ...sum(daily), days: daily };
  });
  return rows.sort((a, b) => b.step2 + b.contactSent - (a.step2 + a.contactSent) || b.sent - a.sent || b.landed - a.landed || a.name.localeCompare(b.name));
}

/** The first NAMED_SOURCES, and the rest summed as one (a single one left is named too). */
export function namedSources(ranked: SourceWorth[]): { named: SourceWorth[]; rest?: SourceWorth & { sources: number } } {
  if (ranked.length <= NAMED_SOURCES + 1) return { named: ranked };
  const [named, others] = [ranked.slice(0, NAMED_SOURCES), ranked.slice(NAMED_SOURCES)];
  const days = others[0]!.days.map((day, i) => ({ date: day.date, ...sum(others.map((o) => o.days[i]!)) }));
  return { named, rest: { key: "", name: `${others.length} more sources, summed`, sources: others.length, ...sum(others), days } };
}

/** `rows` start with the row's name; a column headed "" is a bar. */
export type Table = { kind: "days" | "steps" | "devices" | "sources"; title: string; head: string[]; rows: string[][]; note?: string };

const STEPS = ["Step 2", "Step 3", "Step 4", "Step 5", "Sent"];
function figures(days: FunnelDay[], pick: (day: FunnelDay) => Steps): number[] {
  const sums = [0, 0, 0, 0, 0, 0];
  for (const s of days.map(pick)) [s.reached[2], s.reached[3], s.reached[4], s.reached[5], s.sent, s.contactSent].forEach((n, i) => (sums[i]! += n));
  return sums;
}
const landed = (days: FunnelDay[], pick: (day: FunnelDay) => Steps) => days.reduce((n, day) => n + pick(day).landed, 0);
const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);
const worthCells = (w: Worth) => [String(w.landed), String(w.step2), String(w.sent), percent(w.sendRate), String(w.contactSent)];

/** The report of `days`, oldest first. */
export function funnelReport(days: FunnelDay[]): Table[] {
  const range = `last ${days.length} days`;
  const total = figures(days, (day) => day);
  const widest = Math.max(1, ...total.slice(0, 5));
  const kept = (i: number) => (i > 0 && total[i - 1]! > 0 ? `${Math.round((total[i]! / total[i - 1]!) * 100)}% of ${STEPS[i - 1]}` : "");
  const { named, rest } = namedSources(sourceWorth(days));
  const sources = rest ? [...named, rest] : named;
  return [
    {
      kind: "days",
      title: `The calculator's funnel, ${range} (Africa/Johannesburg)`,
      head: ["Day", "Landed", ...STEPS, "Contact"],
      rows: [
        ...days.map((day) => [day.date, String(day.landed), ...figures([day], (d) => d).map(String)]),
        ["Total", String(landed(days, (day) => day)), ...total.map(String)],
      ],
    },
    {
      kind: "steps",
      title: "Step by step: the visits that reached each step, and what each kept of the step before",
      head: ["Step", "", "Visits", "Kept"],
      rows: STEPS.map((step, i) => [step, "█".repeat(Math.round((total[i]! / widest) * 40)), String(total[i]), kept(i)]),
    },
    {
      kind: "devices",
      title: "By device",
      head: ["Device", "Landed", ...STEPS, "Contact"],
      rows: DEVICES.map((device) => [device, String(landed(days, (day) => day.byDevice[device])), ...figures(days, (day) => day.byDevice[device]).map(String)]),
    },
    {
      kind: "sources",
      title: `What each source brought, ${range}: landings, visits that reached step 2, requests sent, sends per step-2 visit, contact messages; then each day it brought any`,
      head: ["Source / day", "Landed", "Step 2", "Sent", "Step 2 → sent", "Contact"],
      rows: sources.flatMap((source) => [
        [source.name, ...worthCells(source)],
        ...source.days.filter((day) => day.landed + day.step2 + day.sent + day.contactSent > 0).map((day) => [`  ${day.date}`, ...worthCells(day)]),
      ]),
      note:
        sources.length === 0
          ? `No source brought a landing, a visit to step 2 or a message in the ${range}.`
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

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
function htmlTable({ kind, title, head, rows, note }: Table): string {
  const cell = (text: string, c: number) =>
    c === 0 ? `<th scope="row">${escape(text.trim())}</th>` : `<td${head[c] === "" ? ' class="bar"' : ""}>${escape(text)}</td>`;
  const cells = (row: string[]) => row.map(cell).join("");
  const body = rows.map((row) => `<tr${row[0]!.startsWith(" ") ? ' class="day"' : ""}>${cells(row)}</tr>`).join("");
  const table = `<table class="${kind}"><caption>${escape(title)}</caption><thead><tr>${head.map((h) => `<th scope="col">${escape(h)}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table>`;
  return `${rows.length > 0 ? table : `<h3>${escape(title)}</h3>`}${note ? `<p>${escape(note)}</p>` : ""}`;
}

/** `days`: the last 30, oldest first. */
export function funnelPage(days: FunnelDay[]): string {
  const sections = [7, 30].map((n) => `<section><h2>Last ${n} days</h2>${funnelReport(days.slice(-n)).map(htmlTable).join("")}</section>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Calculator funnel</title><style>
body{font:16px/1.5 system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;margin:1rem 0;width:100%;break-inside:avoid}caption{text-align:left;font-weight:600}
th,td{border-bottom:1px solid #ccc;padding:.25rem .5rem;text-align:right}th[scope=row],td.bar{text-align:left}td.bar{color:#1d4ed8;white-space:nowrap}
tr.day th{font-weight:400;padding-left:1.5rem}table.sources{break-inside:auto}
@media (max-width:40rem){table{display:block;overflow-x:auto}}
@media print{body{margin:0;max-width:none}section+section{break-before:page}}
</style></head><body><h1>Calculator funnel</h1><p>Landings (a page opened from another site, a campaign's link, or typed in; at most ${LANDINGS_A_CLIENT} a day from one address) and visits that reached each step of the calculator and sent it, counted per day (Africa/Johannesburg). Counts only: no visitor is identified. A step counts once per visit. By source, "Step 2 → sent" is the requests sent for each visit that reached step 2 (a service chosen), counted in the same days; it is not a path followed, so a day's share can pass 100% when a visit began the day before. Bots and scripts (curl, a headless browser) are not counted.</p>${sections.join("")}</body></html>`;
}

/**
 * The funnel as the operator reads it (decision 0045): what each source is worth, shown two ways
 * from the same figures: `funnelText` for `npm run -s leads -- funnel`, and `funnelPage`, GET /funnel
 * on the metrics port, a page to read or print with no script (SVG charts, tables).
 */
import { emptySteps, type FunnelDay, STEP_NAMES, stepFigures, type Steps } from "./funnel";
import { sourceOfKey } from "~/funnel/source";

/**
 * What a source brought: visits that reached step 2, calculator requests sent, contact messages,
 * and sends per step-2 visit (null without one). A rate of counts, not of people followed: a send
 * counts on its own day, so a day's rate can pass 1 when a visit began the day before.
 */
interface Worth {
  step2: number;
  sent: number;
  contactSent: number;
  sendRate: number | null;
}
/** One source over a range (`--json`'s `sources`): its key, its name in words, its totals, and each day's. */
export interface SourceWorth extends Worth {
  key: string;
  name: string;
  days: (Worth & { date: string })[];
}

const worth = (step2: number, sent: number, contactSent: number): Worth => ({ step2, sent, contactSent, sendRate: step2 > 0 ? sent / step2 : null });
const sum = (of: Worth[]) => {
  const total = (figure: "step2" | "sent" | "contactSent") => of.reduce((n, w) => n + w[figure], 0);
  return worth(total("step2"), total("sent"), total("contactSent"));
};

/**
 * How many sources a report names; the rest are summed in one row. Forged beacons can add a few
 * hundred sources a day, and a printed page must stay a page: the ten that brought the most
 * visits say where the work comes from (decision 0045). `--json` lists every one.
 */
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

/**
 * A source's key in the words a marketer reads: "newsletter · email · spring" (a campaign's utm
 * values as the agency named them, "–" for one left out), "Google search", "LinkedIn (social)",
 * "A link on example.co.za", "Direct", "Other (not named)".
 */
export function sourceName(key: string): string {
  const source = sourceOfKey(key);
  switch (source?.kind) {
    case "campaign":
      return [source.source, source.medium, source.campaign]
        .map((part) => part ?? "–")
        .join(" · ")
        .replace(/( · –)+$/, "");
    case "search":
      return `${brand(source.name)} search`;
    case "social":
      return `${brand(source.name)} (social)`;
    case "assistant":
      return `${brand(source.name)} (AI assistant)`;
    case "site":
      return `A link on ${source.host}`;
    case "link":
      return "A link on another site";
    case "direct":
      return "Direct";
    case "unknown":
      return "Not known (no JavaScript)";
    default:
      return "Other (not named)";
  }
}

/**
 * Every source of `days` with each day's worth and the range's: first the most visits at step 2
 * and contact messages together (a visit that chose a service or wrote), then the most sends.
 */
export function sourceWorth(days: FunnelDay[]): SourceWorth[] {
  const keys = [...new Set(days.flatMap((day) => Object.keys(day.bySource)))];
  const rows = keys.map((key): SourceWorth => {
    const daily = days.map((day) => {
      const steps = day.bySource[key] ?? emptySteps();
      return { date: day.date, ...worth(steps.reached[2], steps.sent, steps.contactSent) };
    });
    return { key, name: sourceName(key), ...sum(daily), days: daily };
  });
  return rows.sort((a, b) => b.step2 + b.contactSent - (a.step2 + a.contactSent) || b.sent - a.sent || a.name.localeCompare(b.name));
}

/** The first NAMED_SOURCES of ranked sources, and the rest summed as one (none when none is left; one left is named too). */
export function namedSources(ranked: SourceWorth[]): { named: SourceWorth[]; rest?: SourceWorth & { sources: number } } {
  if (ranked.length <= NAMED_SOURCES + 1) return { named: ranked };
  const [named, others] = [ranked.slice(0, NAMED_SOURCES), ranked.slice(NAMED_SOURCES)];
  const days = others[0]!.days.map((day, i) => ({ date: day.date, ...sum(others.map((o) => o.days[i]!)) }));
  return { named, rest: { key: "", name: `${others.length} more sources, summed`, sources: others.length, ...sum(others), days } };
}

/** A send rate as the reports print it: "67%", or "–" without a step-2 visit. */
const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);

type Totals = { steps: [string, number][]; contact: number };

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The funnel's five figures of some days, optionally of one device class or source. */
function totals(days: FunnelDay[], pick: (day: FunnelDay) => Steps | undefined): Totals {
  const sum = [0, 0, 0, 0, 0];
  let contact = 0;
  for (const day of days) {
    const d = pick(day);
    if (!d) continue;
    stepFigures(d).forEach((n, i) => (sum[i]! += n));
    contact += d.contactSent;
  }
  return { steps: STEP_NAMES.map((name, i) => [name, sum[i]!]), contact };
}

/** "−40%" from one step to the next; "" where the first is 0. */
const dropOff = (from: number, to: number) => (from === 0 || to === from ? "" : `${to < from ? "−" : "+"}${Math.round((Math.abs(from - to) / from) * 100)}%`);

function chart({ steps }: Totals, title: string): string {
  const width = 640;
  const height = 220;
  const top = Math.max(1, ...steps.map(([, n]) => n));
  const slot = width / steps.length;
  const bars = steps.map(([name, n], i) => {
    const h = Math.round((n / top) * (height - 60));
    const x = Math.round(i * slot + slot * 0.2);
    const y = height - 30 - h;
    const next = steps[i + 1];
    return [
      `<rect x="${x}" y="${y}" width="${Math.round(slot * 0.6)}" height="${h}" class="bar"><title>${name}: ${n}</title></rect>`,
      `<text x="${x + slot * 0.3}" y="${y - 6}" text-anchor="middle">${n}</text>`,
      `<text x="${x + slot * 0.3}" y="${height - 10}" text-anchor="middle">${name}</text>`,
      next ? `<text x="${Math.round((i + 1) * slot)}" y="${height / 2}" text-anchor="middle" class="drop">${dropOff(n, next[1])}</text>` : "",
    ].join("");
  });
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(title)}: ${steps.map(([name, n]) => `${name} ${n}`).join(", ")}">${bars.join("")}</svg>`;
}

function table(caption: string, rows: [string, Totals][]): string {
  const head = `<tr><th scope="col"></th>${STEP_NAMES.map((name) => `<th scope="col">${name}</th>`).join("")}<th scope="col">Contact messages</th></tr>`;
  const body = rows
    .map(
      ([label, t]) =>
        `<tr><th scope="row">${escape(label)}</th>${t.steps
          .map(([, n], i) => `<td>${n}${i > 0 ? ` <small>${dropOff(t.steps[i - 1]![1], n)}</small>` : ""}</td>`)
          .join("")}<td>${t.contact}</td></tr>`,
    )
    .join("");
  return `<table><caption>${escape(caption)}</caption><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

/** The named sources of a range, then the rest summed, and what the page says of the choice (HTML). */
function shown(days: FunnelDay[]) {
  const { named, rest } = namedSources(sourceWorth(days));
  const note = rest
    ? `The ${NAMED_SOURCES} sources with the most visits at step 2 and contact messages by name; the other ${rest.sources} summed in the last row (<code>npm run -s leads -- funnel --json</code> lists each).`
    : "Every source with a visit or a message in these days, by name.";
  return { rows: rest ? [...named, rest] : named, rest, note };
}

const WORTH_HEAD = `<th scope="col">Reached step 2</th><th scope="col">Sent</th><th scope="col">Step 2 → sent</th><th scope="col">Contact messages</th>`;
const worthCells = (w: Worth) => `<td>${w.step2}</td><td>${w.sent}</td><td>${percent(w.sendRate)}</td><td>${w.contactSent}</td>`;

function sourceTable(caption: string, rows: SourceWorth[]): string {
  const body = rows.map((row) => `<tr><th scope="row">${escape(row.name)}</th>${worthCells(row)}</tr>`).join("");
  return `<table class="sources"><caption>${escape(caption)}</caption><thead><tr><th scope="col">Source</th>${WORTH_HEAD}</tr></thead><tbody>${body}</tbody></table>`;
}

/**
 * The same as bars: a source's visits at step 2 (light) with its sends over them (dark), so the
 * rate reads as how much of the light bar is dark. Names above the bars, so a long campaign fits.
 */
function sourceChart(rows: SourceWorth[], title: string): string {
  const width = 640;
  const bar = 400;
  const row = 44;
  const top = Math.max(1, ...rows.flatMap((r) => [r.step2, r.sent]));
  const length = (n: number) => Math.round((n / top) * bar);
  const items = rows.map((r, i) => {
    const y = 34 + i * row;
    return [
      `<text x="0" y="${y + 12}">${escape(r.name)}</text>`,
      `<rect x="0" y="${y + 18}" width="${length(r.step2)}" height="16" class="step2"><title>${escape(r.name)}: ${r.step2} reached step 2</title></rect>`,
      `<rect x="0" y="${y + 22}" width="${length(r.sent)}" height="8" class="sent"><title>${escape(r.name)}: ${r.sent} sent</title></rect>`,
      `<text x="${bar + 12}" y="${y + 31}">${r.step2} → ${r.sent} sent (${percent(r.sendRate)})</text>`,
    ].join("");
  });
  const legend = `<rect x="0" y="4" width="14" height="14" class="step2"/><text x="20" y="16">Reached step 2</text><rect x="150" y="7" width="14" height="8" class="sent"/><text x="170" y="16">Sent</text>`;
  const label = `${title}: ${rows.map((r) => `${r.name}, ${r.step2} reached step 2, ${r.sent} sent`).join("; ")}`;
  return `<svg viewBox="0 0 ${width} ${34 + rows.length * row}" class="by-source" role="img" aria-label="${escape(label)}">${legend}${items.join("")}</svg>`;
}

/**
 * A source's days as small bars, step-2 visits (light) and sends (dark), scaled to its own
 * busiest day: the trend at a glance. Hidden from screen readers, which read the rows under it.
 */
function sparkline(days: SourceWorth["days"]): string {
  const top = Math.max(1, ...days.flatMap((d) => [d.step2, d.sent]));
  const h = (n: number) => Math.round((n / top) * 22);
  const bars = days.map(
    (d, i) =>
      (h(d.step2) ? `<rect x="${i * 10}" y="${24 - h(d.step2)}" width="8" height="${h(d.step2)}" class="step2"/>` : "") +
      (h(d.sent) ? `<rect x="${i * 10 + 2}" y="${24 - h(d.sent)}" width="4" height="${h(d.sent)}" class="sent"/>` : ""),
  );
  return `<svg viewBox="0 0 ${days.length * 10} 24" class="spark" preserveAspectRatio="none" aria-hidden="true">${bars.join("")}</svg>`;
}

/** Each source day by day: a group a source (with its bars), a row a day it brought something (days of zeros left out, and said so). */
function dayBySource(rows: SourceWorth[], caption: string): string {
  const groups = rows.map((row) => {
    const active = row.days.filter((d) => d.step2 + d.sent + d.contactSent > 0);
    const days = active.map((d) => `<tr><th scope="row"><time datetime="${d.date}">${d.date}</time></th>${worthCells(d)}</tr>`).join("");
    return `<tbody><tr class="group"><th scope="rowgroup">${escape(row.name)}</th><td colspan="4">${sparkline(row.days)}</td></tr>${days}</tbody>`;
  });
  return `<table class="days"><caption>${escape(caption)}</caption><thead><tr><th scope="col">Day</th>${WORTH_HEAD}</tr></thead>${groups.join("")}</table>`;
}

/** `days`: the last 30 days, oldest first. */
export function funnelPage(days: FunnelDay[]): string {
  const sections = [7, 30].map((n) => {
    const range = days.slice(-n);
    const all = totals(range, (d) => d);
    const devices = (["phone", "tablet", "desktop"] as const).map((device): [string, Totals] => [device, totals(range, (d) => d.byDevice[device])]);
    const title = `Last ${n} days (${range[0]?.date} to ${range.at(-1)?.date})`;
    const { rows, note } = shown(range);
    const sources =
      rows.length === 0
        ? "<p>No source brought a visit to step 2 or a message in these days.</p>"
        : `<div class="keep">${sourceTable("By source: what each brought", rows)}<p class="note">${note}</p>${sourceChart(rows, `By source, last ${n} days`)}</div>`;
    return `<section><h2>${title}</h2>${chart(all, title)}<p>Contact messages sent: ${all.contact}</p>${table("By device", devices)}${sources}</section>`;
  });
  const month = days.slice(-30);
  const { rows, note } = shown(month);
  const daily =
    rows.length === 0
      ? ""
      : `<section class="daily"><h2>Each source, day by day (${month[0]?.date} to ${month.at(-1)?.date})</h2><p>Oldest day first; a day on which a source brought nothing is left out. The bars beside each source are its 30 days (light: reached step 2; dark: sent), scaled to its own busiest day. ${note}</p>${dayBySource(rows, "Each source, day by day")}</section>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Calculator funnel</title><style>
body{font:16px/1.5 system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem;color:#1a1a1a}
svg{width:100%;max-width:40rem;height:auto;display:block}.bar{fill:#1d4ed8}svg text{font-size:13px;fill:currentColor}.drop{fill:#b91c1c;font-weight:600}
.step2{fill:#93c5fd}.sent{fill:#1e3a8a}.note{font-size:.875rem;color:#444}
table{border-collapse:collapse;margin:1rem 0;width:100%}caption{text-align:left;font-weight:600}th,td{border-bottom:1px solid #ccc;padding:.25rem .5rem;text-align:right}th[scope=row],th[scope=rowgroup]{text-align:left}small{color:#b91c1c}
th:first-child{text-align:left}.sources th[scope=row]{overflow-wrap:anywhere}
.days .group>*{background:#f1f5f9;padding-top:.5rem}.days th[scope=row]{font-weight:400;padding:.1rem .5rem .1rem 1.5rem}.days td{padding:.1rem .5rem}.spark{width:100%;max-width:none;height:1.5rem}
svg,table,.keep,tr{break-inside:avoid}table.days{break-inside:auto}.days .group{break-after:avoid}
@media print{body{margin:0;max-width:none}section+section{break-before:page}svg text{fill:#000}.days .group>*{background:none;border-bottom:2px solid #000}}
</style></head><body><h1>Calculator funnel</h1><p>Visits that reached each step of the calculator and sent it, counted per day (Africa/Johannesburg). Counts only: no visitor is identified. A step counts once per visit. By source, "Step 2 → sent" is the requests sent for each visit that reached step 2 (a service chosen), counted in the same days; it is not a path followed, so a day's share can pass 100% when a visit began the day before. Bots and scripts (curl, a headless browser) are not counted.</p>${sections.join("")}${daily}</body></html>`;
}

/** `npm run -s leads -- funnel`: a line a day and a bar per step, then each source's totals and days, as on the page. */
export function funnelText(days: FunnelDay[]): string[] {
  const lines = [`The calculator's funnel, last ${days.length} days (Africa/Johannesburg)`];
  lines.push(["date      ", ...STEP_NAMES.map((s) => s.padStart(7)), "Contact".padStart(8)].join(" "));
  for (const day of days) lines.push([day.date, ...stepFigures(day).map((n) => String(n).padStart(7)), String(day.contactSent).padStart(8)].join(" "));
  const total = totals(days, (d) => d).steps.map(([, n]) => n);
  const widest = Math.max(1, ...total);
  lines.push("");
  total.forEach((n, i) => {
    const drop = i > 0 && total[i - 1]! > 0 ? `  (${Math.round((n / total[i - 1]!) * 100)}% of ${STEP_NAMES[i - 1]})` : "";
    lines.push(`${STEP_NAMES[i]!.padEnd(7)} ${"█".repeat(Math.round((n / widest) * 40)).padEnd(40)} ${n}${drop}`);
  });
  lines.push("");
  const { rows, rest } = shown(days);
  if (rows.length === 0) return [...lines, `No source brought a visit to step 2 or a message in the last ${days.length} days.`];
  const width = Math.max(24, ...rows.map((row) => row.name.length + 2));
  const figures = (w: Worth) =>
    [String(w.step2).padStart(7), String(w.sent).padStart(7), percent(w.sendRate).padStart(14), String(w.contactSent).padStart(8)].join(" ");
  lines.push(
    `What each source brought, last ${days.length} days: visits that reached step 2, requests sent, sends per step-2 visit, contact messages`,
    ["source / day".padEnd(width), "Step 2".padStart(7), "Sent".padStart(7), "Step 2 → sent".padStart(14), "Contact".padStart(8)].join(" "),
  );
  for (const row of rows) {
    lines.push(`${row.name.padEnd(width)} ${figures(row)}`);
    for (const day of row.days) if (day.step2 + day.sent + day.contactSent > 0) lines.push(`  ${day.date.padEnd(width - 2)} ${figures(day)}`);
  }
  if (rest)
    lines.push(
      `The ${NAMED_SOURCES} sources with the most visits at step 2 and contact messages by name; the other ${rest.sources} summed (--json lists each).`,
    );
  return lines;
}

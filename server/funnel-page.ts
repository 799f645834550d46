/**
 * GET /funnel on the metrics port: the funnel as a page an operator reads or prints, with no
 * script. Steps left to right as an SVG chart with the drop-off between them, for the last 7 and
 * 30 days, then the same split by device class and by source.
 */
import { type FunnelDay, STEP_NAMES, stepFigures, type Steps } from "./funnel";

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

/** `days`: the last 30 days, oldest first. */
export function funnelPage(days: FunnelDay[]): string {
  const sections = [7, 30].map((n) => {
    const range = days.slice(-n);
    const all = totals(range, (d) => d);
    const devices = (["phone", "tablet", "desktop"] as const).map((device): [string, Totals] => [device, totals(range, (d) => d.byDevice[device])]);
    const sources = [...new Set(range.flatMap((d) => Object.keys(d.bySource)))].map((source): [string, Totals] => [
      source,
      totals(range, (d) => d.bySource[source]),
    ]);
    sources.sort((a, b) => b[1].steps[0]![1] - a[1].steps[0]![1]);
    const title = `Last ${n} days (${range[0]?.date} to ${range.at(-1)?.date})`;
    return `<section><h2>${title}</h2>${chart(all, title)}<p>Contact messages sent: ${all.contact}</p>${table("By device", devices)}${table("By source", sources)}</section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Calculator funnel</title><style>
body{font:16px/1.5 system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem;color:#1a1a1a}
svg{width:100%;max-width:40rem;height:auto;display:block}.bar{fill:#1d4ed8}svg text{font-size:13px;fill:currentColor}.drop{fill:#b91c1c;font-weight:600}
table{border-collapse:collapse;margin:1rem 0;width:100%}caption{text-align:left;font-weight:600}th,td{border-bottom:1px solid #ccc;padding:.25rem .5rem;text-align:right}th[scope=row]{text-align:left}small{color:#b91c1c}
section{break-inside:avoid}@media print{body{margin:0;max-width:none}}
</style></head><body><h1>Calculator funnel</h1><p>Visits that reached each step of the calculator and sent it, counted per day (Africa/Johannesburg). Counts only: no visitor is identified. A step counts once per visit.</p>${sections.join("")}</body></html>`;
}

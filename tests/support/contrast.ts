import type { Page } from "@playwright/test";

/**
 * Colour contrast as WCAG defines it, measured in the page against every colour a background is
 * made of: each stop of a gradient (axe skips gradients), composited over what lies beneath
 * when translucent.
 */
export interface Contrast {
  what: string;
  color: string;
  against: string[];
  /** The lowest ratio against any of `against`. */
  ratio: number;
}

/**
 * Runs in the browser (self-contained: Playwright sends its source): each element's colour (its
 * text, or its focus outline) against its backdrop. `selector` null: the focused element.
 */
function measure({ selector, kind }: { selector: string | null; kind: "text" | "outline" }): (Contrast & { key: string; visible: boolean })[] {
  type RGBA = [number, number, number, number];
  const parse = (css: string): RGBA => {
    const n = (css.match(/[\d.]+/g) ?? []).map(Number);
    return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0, n.length > 3 ? n[3]! : 1];
  };
  const over = (top: RGBA, bottom: RGBA): RGBA => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i]! * a + bottom[i]! * (1 - a)).concat(1) as RGBA;
  };
  const colorsOf = (node: Element): RGBA[] => {
    const style = getComputedStyle(node);
    const list = (style.backgroundImage.match(/rgba?\([^)]*\)/g) ?? []).map(parse);
    list.push(parse(style.backgroundColor));
    return list.filter((c) => c[3] > 0);
  };
  // Every colour the backdrop of `node` can show, from it down to the canvas (white).
  const backdrop = (node: Element | null): RGBA[] => {
    if (!node) return [[255, 255, 255, 1]];
    const own = colorsOf(node);
    if (own.length === 0) return backdrop(node.parentElement);
    if (own.every((c) => c[3] === 1)) return own;
    const below = backdrop(node.parentElement);
    return own.flatMap((c) => (c[3] === 1 ? [c] : below.map((b) => over(c, b))));
  };
  const luminance = ([r, g, b]: RGBA) => {
    const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratio = (a: RGBA, b: RGBA) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi! + 0.05) / (lo! + 0.05);
  };
  const show = (c: RGBA) => `rgb(${c.slice(0, 3).map(Math.round).join(" ")})`;
  const one = (el: Element) => {
    const style = getComputedStyle(el);
    const color = parse(kind === "text" ? style.color : style.outlineColor);
    // Text sits on its own element's background; an outline is drawn outside it, on its parent's.
    const against = backdrop(kind === "text" ? el : el.parentElement);
    const label = (el.textContent ?? "").trim().slice(0, 40) || el.tagName;
    const path: string[] = [];
    for (let n: Element | null = el; n; n = n.parentElement) path.unshift(`${n.tagName}${[...(n.parentElement?.children ?? [])].indexOf(n)}`);
    return {
      what: `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ")[0]}` : ""} "${label}"`,
      color: show(color),
      against: against.map(show),
      ratio: Math.min(...against.map((b) => ratio(color, b))),
      key: path.join(">"),
      visible: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    };
  };
  if (selector !== null) return [...document.querySelectorAll(selector)].map(one);
  const active = document.activeElement;
  return active && active !== document.body ? [one(active)] : [];
}

/** The contrast of the text of each element matching `selector` against its background. */
export async function textContrasts(page: Page, selector: string): Promise<Contrast[]> {
  return (await page.evaluate(measure, { selector, kind: "text" as const })).map(({ what, color, against, ratio }) => ({ what, color, against, ratio }));
}

/**
 * The contrast of the outline of each element matching `selector` against what lies around it
 * (a ring that outlines an image), and whether one is drawn at all (solid or other, 2 px or more).
 */
export async function outlineContrasts(page: Page, selector: string): Promise<(Contrast & { drawn: boolean })[]> {
  return (await page.evaluate(measure, { selector, kind: "outline" as const })).map(({ what, color, against, ratio, visible }) => ({
    what,
    color,
    against,
    ratio,
    drawn: visible,
  }));
}

/**
 * Tabs through the whole page from the top and measures each focused control's focus indicator
 * against the background around it. Also reports a control whose indicator is missing or thin.
 */
export async function focusRingContrasts(page: Page): Promise<{ rings: Contrast[]; missing: string[] }> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const rings: Contrast[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < 150; i++) {
    await page.keyboard.press("Tab");
    const [step] = await page.evaluate(measure, { selector: null, kind: "outline" as const });
    if (!step || seen.has(step.key)) break;
    seen.add(step.key);
    const { what, color, against, ratio } = step;
    if (!step.visible) missing.push(what);
    else rings.push({ what, color, against, ratio });
  }
  return { rings, missing };
}
